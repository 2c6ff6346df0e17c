/**
 * `sluice token create|list|revoke`: API tokens for the HTTP API and the web UI. A
 * token's name is the identity it acts as (the approver name, the creator of the runs
 * it starts); its scope is metrics, read, operate, worker or admin. Only a hash is stored.
 */
import type { Command } from "commander";
import { ApiTokens } from "../../http/auth/tokens.js";
import { NotFoundError } from "../../http/errors.js";
import { json, type CommandContext } from "../command.js";
import { table, timeLabel } from "../format.js";
import { DB_OPTION, DIR_OPTION, withEngine } from "../project.js";

/** Registers `sluice token`. */
export function registerToken(program: Command, cx: CommandContext): void {
  const token = program
    .command("token")
    .description("API tokens for the HTTP API and web UI (sluice server, sluice dev --auth)");

  token
    .command("create")
    .description("create a token and print it once (only its hash is stored)")
    .requiredOption(
      "--scope <scope>",
      "metrics (scrape GET /metrics only: for Prometheus), read (look), operate (enqueue, cancel, retry, signal, approve), worker (also claim and run workflows: out-of-process workers), or admin (also tokens)",
    )
    .option("--name <name>", "who the token acts as: the approver name (default: $USER)")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (opts) => {
      // Also outside a project: a server for external workers (Go) starts in any folder, and its token comes first.
      await withEngine(cx.io, { ...opts, createDatabase: true }, async (engine) => {
        const created = await new ApiTokens(engine.store).create({
          name: opts.name ?? cx.io.env.USER ?? "",
          scope: opts.scope,
        });
        if (opts.json)
          return json(cx, {
            token: created.token,
            ...created.record,
            createdAt: new Date(created.record.createdAt).toISOString(),
          });
        cx.io.stdout(`${created.token}\n`);
        cx.io.stderr(
          `token ${created.record.id} for ${created.record.name} (scope ${created.record.scope}); it is shown only now: send it as "Authorization: Bearer <token>"\n`,
        );
      });
    });

  token
    .command("list")
    .description("list tokens (never their secrets)")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (opts) => {
      await withEngine(cx.io, opts, async (engine) => {
        const tokens = await new ApiTokens(engine.store).list();
        if (opts.json)
          return json(
            cx,
            tokens.map((t) => ({ ...t, createdAt: new Date(t.createdAt).toISOString() })),
          );
        cx.io.stdout(
          `${
            tokens.length
              ? table(
                  ["ID", "NAME", "SCOPE", "CREATED"],
                  tokens.map((t) => [t.id, t.name, t.scope, timeLabel(t.createdAt)]),
                )
              : "no tokens"
          }\n`,
        );
      });
    });

  token
    .command("revoke")
    .description("revoke a token: it stops working at once")
    .argument("<id>", "token id (from sluice token list)")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .action(async (id: string, opts) => {
      await withEngine(cx.io, opts, async (engine) => {
        if (!(await new ApiTokens(engine.store).revoke(id)))
          throw new NotFoundError(`no token with id ${JSON.stringify(id)}: see sluice token list`, "TOKEN_NOT_FOUND");
        cx.io.stdout(`revoked ${id}\n`);
      });
    });
}
