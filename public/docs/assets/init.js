window.ui = SwaggerUIBundle({ url: "/v0/openapi.json", dom_id: "#docs", deepLinking: true, persistAuthorization: true });
