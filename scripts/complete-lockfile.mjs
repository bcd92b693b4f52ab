// `npm run lock:complete`: records workerd's platform binaries for macOS and Windows in
// package-lock.json. This machine's registry does not serve them, so `npm install` leaves them out
// and `npm ci` then refuses the lock as out of sync; npm skips them on Linux by their os/cpu fields.
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const packages = lock.packages;
const version = packages["node_modules/workerd"].optionalDependencies["@cloudflare/workerd-linux-64"];
const platforms = [
  ["darwin-64", "x64", "darwin"],
  ["darwin-arm64", "arm64", "darwin"],
  ["windows-64", "x64", "win32"],
];
let added = 0;
for (const [name, cpu, os] of platforms) {
  const key = `node_modules/@cloudflare/workerd-${name}`;
  if (packages[key]) continue;
  packages[key] = { version, cpu: [cpu], dev: true, license: "Apache-2.0", optional: true, os: [os], engines: { node: ">=16" } };
  added++;
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added ? `added ${added} platform entries` : "lock already complete");
