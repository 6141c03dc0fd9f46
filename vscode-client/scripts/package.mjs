// `npm run package [-- --target linux-x64]`: bundles the server and its Python
// dependencies for a VS Code target (scripts/bundle.py), then builds that
// target's .vsix, skill-lsp-<target>-<version>.vsix. The default target is
// this machine's; `--bundle-only` stops after the bundle (`npm run bundle`).
// SKILL_LSP_BUNDLE_PYTHON names the Python that runs bundle.py.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const client = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const at = args.indexOf("--target");
const target = at >= 0 ? args[at + 1] : `${process.platform}-${process.arch}`;
const python = process.env.SKILL_LSP_BUNDLE_PYTHON ?? (process.platform === "win32" ? "python" : "python3");

execFileSync(python, [path.join(client, "scripts", "bundle.py"), "--target", target], { cwd: client, stdio: ["ignore", "ignore", "inherit"] });
if (!args.includes("--bundle-only")) {
  const { version } = JSON.parse(readFileSync(path.join(client, "package.json"), "utf8"));
  const out = `skill-lsp-${target}-${version}.vsix`;
  const vsce = path.join(client, "node_modules", ".bin", process.platform === "win32" ? "vsce.cmd" : "vsce");
  execFileSync(vsce, ["package", "--no-dependencies", "--allow-missing-repository", "--target", target, "--out", out], {
    cwd: client,
    stdio: "inherit",
    shell: process.platform === "win32",
  });
  console.log(path.join(client, out));
}
