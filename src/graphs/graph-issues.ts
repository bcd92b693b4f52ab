/** The problems graph validation reports, and the collector that keeps each answer small. */
import { GRAPH_ISSUES_MAX } from "./graph-document";

export interface GraphIssue {
  path: string;
  message: string;
}

/**
 * Errors and warnings at paths under `root`. At most GRAPH_ISSUES_MAX of each are kept (the answer
 * stays small whatever the document); the rest are counted into a closing "n more" issue.
 */
export class IssueCollector {
  readonly #root: string;
  readonly #errors: GraphIssue[] = [];
  readonly #warnings: GraphIssue[] = [];
  #moreErrors = 0;
  #moreWarnings = 0;

  constructor(root: string) {
    this.#root = root;
  }

  get root(): string {
    return this.#root;
  }

  error(path: string, message: string): void {
    if (this.#errors.length < GRAPH_ISSUES_MAX - 1) this.#errors.push({ path: `${this.#root}${path}`, message });
    else this.#moreErrors++;
  }

  warn(path: string, message: string): void {
    if (this.#warnings.length < GRAPH_ISSUES_MAX - 1) this.#warnings.push({ path: `${this.#root}${path}`, message });
    else this.#moreWarnings++;
  }

  /** The kept issues, each list closed by its "n more not listed" line when some were dropped. */
  finish(): { errors: GraphIssue[]; warnings: GraphIssue[] } {
    const notListed = (n: number, what: string) => ({ path: this.#root, message: `${n} more ${what} not listed (at most ${GRAPH_ISSUES_MAX} per answer)` });
    const errors = [...this.#errors];
    const warnings = [...this.#warnings];
    if (this.#moreErrors) errors.push(notListed(this.#moreErrors, "errors"));
    if (this.#moreWarnings) warnings.push(notListed(this.#moreWarnings, "warnings"));
    return { errors, warnings };
  }
}
