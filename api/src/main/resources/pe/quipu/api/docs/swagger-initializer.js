// Quipu's interactive docs: Swagger UI over the OpenAPI document this same origin serves. "Try it out" sends
// requests to this origin (no CORS involved) with the key pasted under "Authorize" as Authorization: Bearer <key>.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/v1/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    // BaseLayout, without the standalone preset's top bar, whose logo brings an inline <style> the CSP refuses.
    layout: "BaseLayout",
    // No badge from validator.swagger.io: nothing is loaded from another origin.
    validatorUrl: null,
    // The document is always Quipu's own: ?url= or ?configUrl= in the page's address are not followed.
    queryConfigEnabled: false,
    // A pasted key lives in the page's memory only, never in localStorage.
    persistAuthorization: false
  });
});
