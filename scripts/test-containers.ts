/**
 * `npm run test:containers`: the agent image run for real.
 *
 * 1. Docker: the CLI must be installed (if not, this says how and exits with 2, "skipped"); its engine is started
 *    (`dockerd --storage-driver=vfs --iptables=false --ip6tables=false`) when it is not running and we are root.
 * 2. The base image: AGENT_BASE_IMAGE, else `node:22-slim` if present or pullable, else a local stand-in built once
 *    from Debian's packages and the Node 22 binary in node_modules (scripts/containers/build-base-image.sh) and cached
 *    as `telegram-edge-agent/node-base:22`.
 * 3. The project's image from container/Dockerfile (its size is printed).
 * 4. tests/containers: the image under `docker run`, driven by the Worker under `wrangler dev` through its webhook.
 *    `wrangler dev` with containers enabled needs Docker's BuildKit (`docker buildx`) and, for the outbound handlers,
 *    Cloudflare's egress sidecar image from Docker Hub; where either is missing (as on a machine with Debian's
 *    docker.io and no Docker Hub) the tests stand in for the container platform themselves (see README).
 *
 * Exit codes: 0 passed, 1 failed, 2 skipped (Docker not available; the reason is printed).
 */
import { type SpawnSyncOptions, spawn, spawnSync } from "node:child_process";
import { openSync } from "node:fs";

const LOCAL_BASE = "telegram-edge-agent/node-base:22";
const PUBLIC_BASE = "node:22-slim";
const IMAGE = process.env.AGENT_IMAGE ?? "telegram-edge-agent/runner:dev";
const EGRESS_IMAGE =
  "cloudflare/proxy-everything:3cb1195@sha256:0ef6716c52430096900b150d84a3302057d6cd2319dae7987128c85d0733e3c8";

function quiet(command: string, args: string[], options: SpawnSyncOptions = {}): boolean {
  return spawnSync(command, args, { stdio: "ignore", ...options }).status === 0;
}

function loud(command: string, args: string[]): void {
  const result = spawnSync(command, args, { stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`[containers] failed: ${command} ${args.join(" ")}`);
    process.exit(1);
  }
}

function skip(reason: string): never {
  console.log(`[containers] skipped: ${reason}`);
  process.exit(2);
}

const isRoot = process.getuid?.() === 0;

if (!quiet("docker", ["--version"])) {
  skip("Docker is not installed. On Debian or Ubuntu: `apt-get install -y docker.io` (as root), then run this again.");
}
if (!quiet("docker", ["info"])) {
  if (!quiet("sh", ["-c", "command -v dockerd"])) skip("Docker's engine (dockerd) is not installed or not running.");
  if (!isRoot) skip("Docker's engine is not running, and starting it needs root: start dockerd, then run this again.");
  console.log("[containers] starting Docker's engine (vfs storage, no iptables)");
  const log = openSync("/tmp/dockerd-test-containers.log", "a");
  spawn("dockerd", ["--storage-driver=vfs", "--iptables=false", "--ip6tables=false"], {
    detached: true,
    stdio: ["ignore", log, log],
  }).unref();
  const deadline = Date.now() + 60_000;
  while (!quiet("docker", ["info"])) {
    if (Date.now() > deadline)
      skip("Docker's engine did not start within 60 s (see /tmp/dockerd-test-containers.log).");
    spawnSync("sleep", ["1"]);
  }
}

const hasImage = (image: string) => quiet("docker", ["image", "inspect", image]);
function baseImage(): string {
  if (process.env.AGENT_BASE_IMAGE) return process.env.AGENT_BASE_IMAGE;
  if (hasImage(PUBLIC_BASE)) return PUBLIC_BASE;
  if (hasImage(LOCAL_BASE)) return LOCAL_BASE;
  if (quiet("docker", ["pull", PUBLIC_BASE], { timeout: 120_000 })) return PUBLIC_BASE;
  console.log(`[containers] ${PUBLIC_BASE} cannot be pulled: building ${LOCAL_BASE} once (debootstrap, a few minutes)`);
  if (!isRoot) skip(`building ${LOCAL_BASE} needs root (debootstrap); or set AGENT_BASE_IMAGE`);
  if (!quiet("sh", ["-c", "command -v debootstrap"])) {
    skip(`${PUBLIC_BASE} cannot be pulled and debootstrap is missing (apt-get install -y debootstrap)`);
  }
  loud("bash", ["scripts/containers/build-base-image.sh", LOCAL_BASE]);
  return LOCAL_BASE;
}
const base = baseImage();

console.log(`[containers] building ${IMAGE} from container/Dockerfile on ${base}`);
const began = Date.now();
// The host's network for the build: `npm install` reaches the registry however the host does.
loud("docker", [
  "build",
  "--network",
  "host",
  "--build-arg",
  `BASE_IMAGE=${base}`,
  "-f",
  "container/Dockerfile",
  "-t",
  IMAGE,
  ".",
]);
const size = Number(spawnSync("docker", ["image", "inspect", "--format", "{{.Size}}", IMAGE]).stdout.toString().trim());
console.log(
  `[containers] ${IMAGE}: ${(size / 1e6).toFixed(0)} MB, built in ${Math.round((Date.now() - began) / 1000)} s`,
);

const buildx = quiet("docker", ["buildx", "version"]);
const egress = hasImage(EGRESS_IMAGE);
if (!buildx || !egress) {
  console.log(
    `[containers] not through \`wrangler dev\` with containers: ${[
      buildx ? "" : "`docker buildx` is missing (wrangler builds with `docker build --load`: 'unknown flag: --load')",
      egress ? "" : "Cloudflare's egress sidecar (cloudflare/proxy-everything) is not available locally",
    ]
      .filter(Boolean)
      .join("; ")}. The tests run the image with \`docker run\` and the Worker's handlers instead.`,
  );
}

const tests = spawnSync("npx", ["vitest", "run", "--config", "vitest.containers.config.ts"], {
  stdio: "inherit",
  env: { ...process.env, AGENT_IMAGE: IMAGE },
});
process.exit(tests.status ?? 1);
