// The Node.js that builds the extension: package.json's devEngines names the
// versions every build tool in the lock file accepts (npm ci, lint, typecheck,
// test, package). The runtime dependencies are bundled into the extension and
// run in VS Code's extension host, not under the build's Node.

import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { test } from "node:test";

interface Semver {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
}
// semver comes with vscode-languageclient; the tests read it as npm does.
const semver = createRequire(__filename)("semver") as Semver;

interface Locked {
  version: string;
  dev?: boolean;
  engines?: { node?: string };
}

const root = path.join(__dirname, "..", "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  devEngines?: { runtime?: { name?: string; version?: string } };
};
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, Locked>;
};
const packages = Object.entries(lock.packages).filter(([name]) => name !== "");

// devEngines' range of Node.js versions for the build.
function buildRange(): string {
  const runtime = manifest.devEngines?.runtime;
  assert.equal(runtime?.name, "node");
  assert.ok(runtime.version);
  return runtime.version;
}

// The lowest version of each alternative of the range: "^20.19.0 || >=24" -> 20.19.0, 24.0.0.
function lowest(range: string): string[] {
  return range.split("||").map((part) => {
    const found = semver.minVersion(part.trim());
    assert.ok(found, `no version satisfies ${part}`);
    return found.version;
  });
}

test("every build tool accepts the oldest Node.js of each line devEngines allows", () => {
  const refused: string[] = [];
  for (const version of lowest(buildRange())) {
    for (const [name, locked] of packages) {
      const wanted = locked.engines?.node;
      if (locked.dev && wanted && !semver.satisfies(version, wanted)) {
        refused.push(`${name}@${locked.version} wants node ${wanted}, not ${version}`);
      }
    }
  }
  assert.deepEqual(refused, []);
});

test("devEngines is no wider than the build tools allow", () => {
  // one patch below its oldest version, some build tool refuses
  const [major, minor] = lowest(buildRange())[0].split(".").map(Number);
  const below = `${major}.${minor - 1}.99`;
  const refusing = packages.filter(([, locked]) => locked.dev && locked.engines?.node && !semver.satisfies(below, locked.engines.node));
  assert.notDeepEqual(refusing, [], `no build tool refuses node ${below}: devEngines could allow it`);
});

test("the bundled dependencies whose engines exclude the build's Node.js are known", () => {
  // @vscode/python-extension 1.0.6 declares node >=22.17.0 and vscode ^1.93.0 (1.0.5 declared
  // >=16.17.1 and ^1.78.0 for the same code); npm ci warns (EBADENGINE), but its code, 27
  // lines calling vscode.extensions.getExtension('ms-python.python'), activate() and exports, is
  // bundled into dist/extension.js and runs in VS Code's extension host.
  const [oldest] = lowest(buildRange());
  const excluded = packages
    .filter(([, locked]) => !locked.dev && locked.engines?.node && !semver.satisfies(oldest, locked.engines.node))
    .map(([name]) => name);
  assert.deepEqual(excluded, ["node_modules/@vscode/python-extension"]);
});
