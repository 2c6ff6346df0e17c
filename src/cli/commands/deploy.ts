import type { Command } from "commander";
import { describeChanges, isEmptyChange, mergePushed, pushSelects, type ReleaseManifest } from "../../core/release.js";
import { InvalidInputError, SluiceError } from "../../sdk/errors.js";
import { openStore, storeReady } from "../../store/open.js";
import type { Store } from "../../store/types.js";
import { type CommandContext, json } from "../command.js";
import { parseCount } from "../options.js";
import { DB_OPTION, DIR_OPTION, refuseStrayDatabase, resolveProject, type ProjectContext } from "../project.js";
import { scheduleRowProblems, scheduleRowsOf } from "../../triggers/schedule-rows.js";

/** A release that does not validate is not published. */
export class DeployRefusedError extends SluiceError {
  constructor(problems: string[]) {
    super(
      "DEPLOY_REFUSED",
      `release not published: ${problems.length} problem(s) above; fix them and deploy again (nothing was written)`,
    );
  }
}

const common = (c: Command) =>
  c
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--dry-run", "build, validate and print the changes; publish nothing")
    .option("--allow-empty", "publish even when nothing changed against the current release")
    .option(
      "--servers <n>",
      "how many servers the project is deployed to (default $SLUICE_SERVERS, else 1): checks the storage model",
    )
    .option("--json", "print the release as JSON");

/** `sluice deploy`: build, validate, diff and publish a release of the whole project. */
export function registerDeploy(program: Command, cx: CommandContext): void {
  common(
    program
      .command("deploy")
      .description(
        "build every workflow, script and pipeline of the project, validate it and publish it to the database as a release that workers started with --release run",
      )
      .option("--rollback <release>", "publish an earlier release's code again (as a new release)"),
  ).action(async (opts) => deploy(cx, opts, null));
}

/** `sluice push <path>`: a deploy of one path and its modules. */
export function registerPush(program: Command, cx: CommandContext): void {
  common(
    program
      .command("push")
      .description(
        "deploy one path (a workflow or script and its __mod/ modules, or a folder); the rest of the current release stays",
      )
      .argument("<path>", "project-relative path, e.g. f/data/etl"),
  ).action(async (path: string, opts) => deploy(cx, opts, path));
}

interface DeployOptions {
  dir?: string;
  db?: string;
  dryRun?: boolean;
  allowEmpty?: boolean;
  servers?: string;
  json?: boolean;
  rollback?: string;
}

async function deploy(cx: CommandContext, opts: DeployOptions, pushPath: string | null): Promise<void> {
  const servers = Math.max(1, parseCount(opts.servers ?? cx.io.env.SLUICE_SERVERS ?? "1", "--servers"));
  const rollback = opts.rollback === undefined ? null : parseCount(opts.rollback, "--rollback");
  const project = resolveProject(cx.io, opts.dir, opts.db);
  refuseStrayDatabase(project);
  const store = openStore(project.dbPath);
  try {
    await storeReady(store);
    await run(cx, opts, project, store, { servers, rollback, pushPath });
  } finally {
    await store.close();
  }
}

async function run(
  cx: CommandContext,
  opts: DeployOptions,
  project: ProjectContext,
  store: Store,
  args: { servers: number; rollback: number | null; pushPath: string | null },
): Promise<void> {
  const out = (t: string) => cx.io.stdout(t);
  const { planRelease, publishRelease, publisher } = await import("../../release/publish.js");
  let manifest: ReleaseManifest;
  let blobs: Array<{ hash: string; code: string }> = [];
  const started = Date.now();
  if (args.rollback !== null) {
    const old = await store.getRelease(args.rollback);
    if (!old)
      throw new InvalidInputError(
        `release ${args.rollback} does not exist in ${project.dbLabel}: list the releases with sluice releases`,
        { code: "UNKNOWN_RELEASE" },
      );
    manifest = old.manifest;
  } else {
    const { buildRelease } = await import("../../release/build.js");
    const built = await buildRelease(project.root, {
      servers: args.servers,
      sharedStore: store.location.kind === "server",
      assets: project.config.assets,
      triggers: project.config.triggers,
      schedules: scheduleRowsOf(project.config.triggers),
      scheduleProblems: (runnables) => scheduleRowProblems(project.config.triggers, runnables),
      env: cx.io.env,
    });
    if (built.problems.length) {
      for (const p of built.problems) cx.io.stderr(`error: ${p}\n`);
      throw new DeployRefusedError(built.problems);
    }
    manifest = built.manifest;
    blobs = built.blobs;
    if (args.pushPath !== null) {
      const target = args.pushPath;
      if (!manifest.files.some((f) => pushSelects(target, f.path)))
        throw new InvalidInputError(
          `${target} matches no file of the project in ${project.root}: pass a path such as f/data/etl`,
          {
            code: "UNKNOWN_PATH",
          },
        );
      const current = await store.currentReleaseId();
      const base = current === null ? null : ((await store.getRelease(current))?.manifest ?? null);
      manifest = mergePushed(base, manifest, (p) => pushSelects(target, p));
    }
  }
  const plan = await planRelease(store, manifest);
  const from = plan.current ? `release ${plan.current.id}` : "no release";
  const lines = describeChanges(plan.changes);
  const empty = isEmptyChange(plan.changes);
  const publish = !opts.dryRun && (!empty || opts.allowEmpty === true);
  const published = publish
    ? await publishRelease(store, plan, manifest, {
        blobs,
        createdBy: publisher(cx.io.env),
        rollbackOf: args.rollback,
      })
    : null;
  if (opts.json) {
    json(cx, {
      published: published?.id ?? null,
      current: published?.id ?? plan.current?.id ?? null,
      rollbackOf: args.rollback,
      changes: plan.changes,
      manifest,
      ms: Date.now() - started,
    });
    return;
  }
  out(`changes against ${from}${empty ? ": none" : ":"}\n`);
  for (const l of lines) out(`  ${l}\n`);
  if (opts.dryRun) out("dry run: nothing published\n");
  else if (!published) out(`nothing changed: ${from} stays current (--allow-empty publishes anyway)\n`);
  else
    out(
      `published release ${published.id}${args.rollback !== null ? ` (rollback to release ${args.rollback})` : ""}: ${manifest.modules.length} module(s), ${manifest.workflows.length} workflow(s) to ${project.dbLabel} in ${Date.now() - started} ms\n`,
    );
}
