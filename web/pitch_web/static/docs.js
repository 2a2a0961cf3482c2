// Starts Swagger UI on /docs over the API's description (its URL is the page's
// data-openapi): a file, not an inline script, so the site's Content-Security-Policy
// ("script-src 'self'") lets it run.
(function () {
  "use strict";
  const root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.openapi,
    domNode: root,
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
})();
