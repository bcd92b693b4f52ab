/** A small element builder: text is always set as text (never parsed as HTML). */
type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "object" ? child : String(child));
  }
  return el;
}

/** A data table: a caption, header cells and rows of cells. */
export function table(caption: string, headers: string[], rows: Child[][], attrs: Record<string, string> = {}): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      attrs,
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, ...headers.map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, ...rows.map((cells) => h("tr", {}, ...cells.map((c, i) => (i === 0 ? h("th", { scope: "row" }, c) : h("td", {}, c)))))),
    ),
  );
}
