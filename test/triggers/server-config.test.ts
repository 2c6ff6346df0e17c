/**
 * A folder-mode `sluice server` follows `sluice.json`'s trigger rows as `sluice dev` does (the same
 * reload): against a real Mosquitto and nats-server started here, an MQTT row and a NATS row added
 * to the file while the server runs start consuming, a bad file is refused while the running rows
 * keep consuming, and a row removed stops (its messages stay at the broker: no run).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { connectAsync, type MqttClient } from "mqtt";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Broker, startMosquitto, startNatsServer } from "../helpers/brokers.js";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { delay, eventually } from "../helpers/tmp.js";

/** The payloads of the project's `orders` runs, read from its SQLite file (the CLI refuses a bad sluice.json). */
function payloads(root: string): number[] {
  const db = new Database(join(root, ".sluice", "sluice.db"), { readonly: true });
  try {
    const rows = db.prepare("SELECT payload FROM runs WHERE workflow = 'orders'").all() as Array<{ payload: string }>;
    return rows.map((r) => (JSON.parse(r.payload) as { n: number }).n).sort((a, b) => a - b);
  } finally {
    db.close();
  }
}

const WORKFLOW = `import { defineWorkflow } from "sluice";
export default defineWorkflow<{ n: number }>("orders", { handler: async (p) => p.n });
`;
const config = (rows: unknown[]) => JSON.stringify({ triggers: rows }, null, 2);

describe("sluice server (folder mode) follows sluice.json trigger rows", () => {
  let mosquitto: Broker;
  let nats: Broker;
  let pub: MqttClient;
  let nc: NatsConnection;
  beforeAll(async () => {
    [mosquitto, nats] = await Promise.all([startMosquitto(), startNatsServer()]);
    pub = await connectAsync(mosquitto.url, { clientId: "server-config-publisher" });
    nc = await connect({ servers: nats.url });
    await (await nc.jetstreamManager()).streams.add({ name: "ORDERS", subjects: ["orders.>"] });
  }, 20_000);
  afterAll(async () => {
    await pub?.endAsync();
    await nc?.close();
  });

  it("a row added starts consuming, a bad file is refused, a row removed stops", async () => {
    const mqttRow = { name: "orders-mqtt", kind: "mqtt", target: "orders", url: mosquitto.url, topic: "orders/#" };
    const natsRow = { name: "orders-nats", kind: "nats", target: "orders", url: nats.url, stream: "ORDERS" };
    const root = makeProject({ "sluice.json": config([]), "workflows/orders.ts": WORKFLOW }, "sluice-server-config-");
    const server = spawnSluice(["server", "--port", "0", "--workers", "none"], root, {
      SLUICE_TRIGGER_TICK_MS: "200",
    });
    await server.waitFor(/server \d+ ready/, 30_000);

    writeFileSync(join(root, "sluice.json"), config([mqttRow, natsRow]));
    await server.waitFor(/reloaded sluice\.json: triggers orders-mqtt, orders-nats/, 15_000);
    await server.waitFor(/trigger orders-mqtt: consuming \(mqtt\)/, 15_000);
    await server.waitFor(/trigger orders-nats: consuming \(nats\)/, 15_000);
    await pub.publishAsync("orders/eu", JSON.stringify({ n: 1 }), { qos: 1 });
    await nc.jetstream().publish("orders.eu", JSON.stringify({ n: 2 }));
    await eventually(() => payloads(root).length === 2, 20_000);
    expect(payloads(root)).toEqual([1, 2]);

    // A bad row: refused with the reason; both running rows keep consuming.
    writeFileSync(join(root, "sluice.json"), config([mqttRow, { ...natsRow, kind: "carrier-pigeon" }]));
    await server.waitFor(/error: sluice\.json not reloaded, the running triggers stay as they were: .*"kind"/, 15_000);
    await pub.publishAsync("orders/eu", JSON.stringify({ n: 3 }), { qos: 1 });
    await nc.jetstream().publish("orders.eu", JSON.stringify({ n: 4 }));
    await eventually(() => payloads(root).length === 4, 20_000);

    // The NATS row removed: it stops; the MQTT row goes on.
    writeFileSync(join(root, "sluice.json"), config([mqttRow]));
    await server.waitFor(/reloaded sluice\.json: triggers orders-mqtt\n/, 15_000);
    await delay(1000); // a few trigger ticks: the removed loop has stopped its consumer
    await nc.jetstream().publish("orders.eu", JSON.stringify({ n: 5 }));
    await pub.publishAsync("orders/eu", JSON.stringify({ n: 6 }), { qos: 1 });
    await eventually(() => payloads(root).includes(6), 20_000);
    await delay(1500);
    expect(payloads(root)).toEqual([1, 2, 3, 4, 6]);
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 120_000);
});
