/**
 * What an update (PUT /v0/graphs/{graph_id}) may change relative to the version it replaces: additions
 * and renames only (docs/graphs.md). `doc` is a document validateGraph accepted.
 */
import type { GraphDocument } from "./graph-document";
import type { GraphIssue } from "./graph-issues";
import type { RuntimeGraph } from "./runtime-graph";

/**
 * Objective and module ids (bundles included) of the previous version missing from the new
 * document: an update may add and rename, never remove (docs/graphs.md "Updates").
 */
export function removedIds(previous: { objectives: readonly string[]; modules: readonly string[] }, doc: GraphDocument, pathPrefix = "body"): GraphIssue[] {
  const objectiveIds = new Set(doc.learning_objectives.map((o) => o.id));
  const moduleIds = new Set([...doc.modules.map((m) => m.id), ...(doc.bundles ?? []).map((b) => b.id)]);
  const issues: GraphIssue[] = [];
  for (const id of previous.objectives) {
    if (!objectiveIds.has(id))
      issues.push({
        path: `${pathPrefix}.learning_objectives`,
        message: `learning objective '${id}' was removed; an update must keep every existing objective id`,
      });
  }
  for (const id of previous.modules) {
    if (!moduleIds.has(id))
      issues.push({ path: `${pathPrefix}.modules`, message: `module '${id}' was removed; an update must keep every existing module and bundle id` });
  }
  return issues;
}

/**
 * Everything an update (PUT /v0/graphs/{graph_id}) may not do to the ids of the previous version
 * (docs/graphs.md "Updates": additions and renames only): remove an objective, module, bundle or taxon
 * (`removedIds`, plus taxa here), or, for an id it keeps, take something away or change its kind:
 * - an objective losing a prerequisite;
 * - an atom losing an aligned objective, or changing its `type`;
 * - an atom becoming a bundle or a bundle an atom;
 * - a bundle losing a member; a taxon losing a module.
 * Gaining prerequisites, alignments, members or taxon modules, new ids, and new names are allowed.
 * A lost reference to an id that was itself removed is not repeated (the removal is reported).
 * `previous` is the runtime form of the current version; `doc` must be valid (validateGraph).
 */
export function nonAdditiveChanges(previous: RuntimeGraph, doc: GraphDocument, pathPrefix = "body"): GraphIssue[] {
  const issues = removedIds({ objectives: previous.objectives, modules: previous.modules.map((m) => m.label) }, doc, pathPrefix);
  const objectiveIds = new Set(doc.learning_objectives.map((o) => o.id));
  const docIds = new Set<string>([...doc.modules.map((m) => m.id), ...(doc.bundles ?? []).map((b) => b.id)]);
  const objectiveLabel = (i: number) => previous.objectives[i]!;
  const moduleLabel = (i: number) => previous.modules[i]!.label;
  const lost = (before: string[], now: readonly string[] | undefined, stillExists: Set<string>) => {
    const kept = new Set(now ?? []);
    return before.filter((id) => !kept.has(id) && stillExists.has(id));
  };
  const list = (ids: string[]) => ids.map((id) => `'${id}'`).join(", ");

  const previousObjective = new Map(previous.objectives.map((label, i) => [label, i]));
  doc.learning_objectives.forEach((o, i) => {
    const k = previousObjective.get(o.id);
    if (k === undefined) return;
    const gone = lost(previous.prerequisites[k]!.map(objectiveLabel), o.prerequisites, objectiveIds);
    if (gone.length) {
      issues.push({
        path: `${pathPrefix}.learning_objectives[${i}].prerequisites`,
        message: `learning objective '${o.id}' lost prerequisite(s) ${list(gone)}; an update may add prerequisites, never remove them`,
      });
    }
  });

  const previousModule = new Map(previous.modules.map((m, _i) => [m.label, m]));
  doc.modules.forEach((m, i) => {
    const before = previousModule.get(m.id);
    if (!before) return;
    const path = `${pathPrefix}.modules[${i}]`;
    if (!before.atom) {
      issues.push({ path, message: `'${m.id}' was a bundle and is now a module; an update cannot turn a bundle into a module` });
      return;
    }
    if (before.type !== m.type) {
      issues.push({ path: `${path}.type`, message: `module '${m.id}' changed type from '${before.type}' to '${m.type}'; a module's type cannot change` });
    }
    const gone = lost(before.objectives.map(objectiveLabel), m.learning_objectives, objectiveIds);
    if (gone.length) {
      issues.push({
        path: `${path}.learning_objectives`,
        message: `module '${m.id}' lost aligned learning objective(s) ${list(gone)}; an update may add alignments, never remove them`,
      });
    }
  });
  (doc.bundles ?? []).forEach((b, i) => {
    const before = previousModule.get(b.id);
    if (!before) return;
    const path = `${pathPrefix}.bundles[${i}]`;
    if (before.atom) {
      issues.push({ path, message: `'${b.id}' was a module and is now a bundle; an update cannot turn a module into a bundle` });
      return;
    }
    const gone = lost(before.members.map(moduleLabel), b.modules, docIds);
    if (gone.length) {
      issues.push({ path: `${path}.modules`, message: `bundle '${b.id}' lost member(s) ${list(gone)}; an update may add members, never remove them` });
    }
  });

  const taxa = new Map((doc.taxonomy ?? []).map((t, i) => [t.id, { t, i }]));
  for (const before of previous.taxonomy) {
    const now = taxa.get(before.id);
    if (!now) {
      issues.push({ path: `${pathPrefix}.taxonomy`, message: `taxon '${before.id}' was removed; an update must keep every existing taxon` });
      continue;
    }
    const gone = lost(before.modules.map(moduleLabel), now.t.modules, docIds);
    if (gone.length) {
      issues.push({
        path: `${pathPrefix}.taxonomy[${now.i}].modules`,
        message: `taxon '${before.id}' lost module(s) ${list(gone)}; an update may add modules to a taxon, never remove them`,
      });
    }
  }
  return issues;
}
