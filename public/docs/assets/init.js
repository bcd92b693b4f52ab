// The API reference (Swagger UI). A token or client secret typed into "Authorize" lives in this page's
// memory only and is gone on reload: never persisted in the browser, whose storage this origin shares
// with the instructor dashboard (docs/security.md). What an earlier version of this page stored is removed.
try {
  window.localStorage.removeItem("authorized");
} catch (_) {
  // storage unavailable: nothing was stored either
}
// The document lists the local and deployed servers; "Try it out" should call the server that serves this page.
fetch("/v0/openapi.json")
  .then((res) => res.json())
  .then((spec) => {
    spec.servers = [{ url: location.origin, description: "This server" }, ...(spec.servers || []).filter((s) => s.url !== location.origin)];
    window.ui = SwaggerUIBundle({ spec, dom_id: "#docs", deepLinking: true, persistAuthorization: false });
  });
