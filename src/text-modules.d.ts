// Files bundled as text (wrangler.toml [[rules]] type = "Text").
declare module "swagger-ui-dist/swagger-ui.css" {
  const text: string;
  export default text;
}
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const text: string;
  export default text;
}
