// The document lists the local and deployed servers; "Try it out" should call the server that serves this page.
fetch("/v0/openapi.json")
  .then((res) => res.json())
  .then((spec) => {
    spec.servers = [{ url: location.origin, description: "This server" }, ...(spec.servers || []).filter((s) => s.url !== location.origin)];
    window.ui = SwaggerUIBundle({ spec, dom_id: "#docs", deepLinking: true, persistAuthorization: true });
  });
