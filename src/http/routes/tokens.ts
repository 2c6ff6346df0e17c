/** `GET /api/tokens`, `POST /api/tokens`, `DELETE /api/tokens/:id` (admin scope). */
import type { Hono } from "hono";
import type { ApiToken } from "../api-types.js";
import { requireScope } from "../auth/identity.js";
import type { ApiTokenInfo } from "../auth/tokens.js";
import type { AppDeps, AppEnv } from "../context.js";
import { NotFoundError } from "../errors.js";
import { bodyObject, onlyFields, reqString } from "../input.js";
import { readJsonBody } from "../json-body.js";
import { iso } from "../views.js";

const tokenView = (t: ApiTokenInfo): ApiToken => ({
  id: t.id,
  name: t.name,
  scope: t.scope,
  createdAt: iso(t.createdAt),
});

/** Registers the token routes. */
export function tokenRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  app.get("/api/tokens", requireScope("admin"), async (c) =>
    c.json({ tokens: (await deps.tokens.list()).map(tokenView) }),
  );

  app.post("/api/tokens", requireScope("admin"), async (c) => {
    const body = bodyObject(await readJsonBody(c, deps.limits), '{"name": "alice", "scope": "operate"}');
    onlyFields(body, ["name", "scope"]);
    const created = await deps.tokens.create({
      name: reqString(body, "name", '"alice"'),
      scope: reqString(body, "scope", '"read"'),
    });
    return c.json({ token: created.token, info: tokenView(created.record) }, 201);
  });

  app.delete("/api/tokens/:id", requireScope("admin"), async (c) => {
    const id = c.req.param("id");
    if (!(await deps.tokens.revoke(id)))
      throw new NotFoundError(`no token with id ${JSON.stringify(id)}: see GET /api/tokens`, "TOKEN_NOT_FOUND");
    return c.json({ id, revoked: true });
  });
}
