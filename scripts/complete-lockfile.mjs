// `npm run lock:complete`: records the platform-specific optional packages (native binaries of
// workerd, Biome, oxc, ... for other operating systems and CPUs) that this machine's registry does not
// serve. `npm install` leaves them out of package-lock.json, and `npm ci` then refuses the lock as out
// of sync; recorded with their os/cpu/libc, npm skips them on this platform as it would any foreign binary.
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const packages = lock.packages;

const OS = {
  darwin: "darwin",
  linux: "linux",
  win32: "win32",
  windows: "win32",
  android: "android",
  freebsd: "freebsd",
  netbsd: "netbsd",
  openbsd: "openbsd",
  sunos: "sunos",
  aix: "aix",
  openharmony: "openharmony",
};
const CPU = {
  x64: "x64",
  64: "x64",
  arm64: "arm64",
  arm: "arm",
  ia32: "ia32",
  ppc64: "ppc64",
  riscv64: "riscv64",
  s390x: "s390x",
  loong64: "loong64",
  mips64el: "mips64el",
  wasm32: "wasm32",
};

/** os / cpu / libc of a platform package, read off its name (`@biomejs/cli-linux-x64-musl`, `@cloudflare/workerd-darwin-64`). */
function platformOf(name) {
  const tokens = name.split("/").pop().split("-");
  const os = tokens.map((t) => OS[t]).find(Boolean);
  const cpu = tokens.map((t) => CPU[t]).find(Boolean);
  if (!os && cpu !== "wasm32") return undefined;
  const entry = { cpu: [cpu ?? "wasm32"] };
  if (os) entry.os = [os];
  if (tokens.some((t) => t.startsWith("musl"))) entry.libc = ["musl"];
  else if (os === "linux" && tokens.some((t) => t.startsWith("gnu"))) entry.libc = ["glibc"];
  return entry;
}

let added = 0;
for (const pkg of Object.values(packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const depKey = `node_modules/${dep}`;
    if (packages[depKey] || !/^\d+\.\d+\.\d+/.test(version)) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    packages[depKey] = { version, ...platform, dev: pkg.dev ?? undefined, optional: true };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added ? `added ${added} platform entries` : "lock already complete");
