// floorgate's own start-up script for Swagger UI (not vendored): a file rather than an
// inline <script> so the page's Content-Security-Policy can say script-src 'self'.
"use strict";
window.ui = SwaggerUIBundle({
  url: "/v1/openapi.json", // same origin; ?url= in the page address is ignored (queryConfigEnabled is off)
  dom_id: "#swagger-ui",
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout", // no top bar, so no box to load another document from
  validatorUrl: null, // the default would send the document to validator.swagger.io
  deepLinking: true,
  docExpansion: "list",
});
