// The API reference (Swagger UI). A token or client secret typed into "Authorize" lives in this page's
// memory only and is gone on reload: never persisted in the browser, whose storage this origin shares
// with the instructor dashboard (docs/security.md). What an earlier version of this page stored is removed.
try {
  window.localStorage.removeItem("authorized");
} catch (_) {
  // storage unavailable: nothing was stored either
}
window.ui = SwaggerUIBundle({ url: "/v0/openapi.json", dom_id: "#docs", deepLinking: true, persistAuthorization: false });
