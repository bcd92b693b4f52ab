/** TinCanJS ships no types; the xAPI library test uses the few members declared here. */
declare module "tincanjs" {
  interface SaveResult {
    err: unknown;
    xhr: { status: number; responseText: string } | null;
  }
  type Callback = (err: unknown, xhr: { status: number; responseText: string } | null) => void;
  class Statement {
    constructor(cfg: Record<string, unknown>);
    id: string;
    static fromJSON(json: string): Statement;
    asVersion(version: string): Record<string, unknown>;
  }
  class LRS {
    constructor(cfg: { endpoint: string; auth: string; version: string; allowFail: boolean });
    saveStatement(statement: Statement, cfg: { callback: Callback }): SaveResult | undefined;
    saveStatements(statements: Statement[], cfg: { callback: Callback }): SaveResult | undefined;
  }
  const TinCan: { LRS: typeof LRS; Statement: typeof Statement };
  export default TinCan;
}
