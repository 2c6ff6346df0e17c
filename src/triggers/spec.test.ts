import { describe, expect, it } from "vitest";
import { describeTrigger, parseConfigTriggers, parsePipelineRow } from "./spec.js";

describe("trigger rows", () => {
  it("parses sluice.json rows targeting any runnable, with their mapping", () => {
    const [mqtt, nats] = parseConfigTriggers([
      {
        name: "orders",
        kind: "mqtt",
        target: "orders",
        url: "mqtt://127.0.0.1:1883",
        topic: "orders/#",
        idFrom: "$.body.id",
      },
      {
        name: "events",
        kind: "nats",
        target: "f/x/script",
        servers: ["nats://127.0.0.1:4222"],
        stream: "EVENTS",
        ackWait: "5s",
        args: { event: "$.body", subject: "$.subject" },
        format: "json",
      },
    ]);
    expect(mqtt).toMatchObject({
      id: "orders",
      kind: "mqtt",
      target: { type: "runnable", name: "orders" },
      options: { url: "mqtt://127.0.0.1:1883", topics: ["orders/#"] },
      mapping: { format: "auto", idFrom: ["body", "id"] },
    });
    expect(nats).toMatchObject({
      options: { servers: ["nats://127.0.0.1:4222"], stream: "EVENTS", ackWaitMs: 5000 },
      mapping: {
        format: "json",
        args: [
          ["event", ["body"]],
          ["subject", ["subject"]],
        ],
      },
    });
    expect(describeTrigger(nats!)).toBe("nats://127.0.0.1:4222 stream EVENTS");
  });

  it("parses a Postgres row: the table with its schema, the events, the URL or the variable holding it", () => {
    const [a, b] = parseConfigTriggers([
      { name: "a", kind: "postgres", target: "w", url: "postgres://u@h:5432/app", table: "orders" },
      { name: "b", kind: "postgres", target: "w", urlEnv: "APP_DB", table: "sales.orders", events: "insert" },
    ]);
    expect(a!.options).toEqual({
      url: "postgres://u@h:5432/app",
      schema: "public",
      table: "orders",
      events: ["insert", "update", "delete"],
    });
    expect(b!.options).toEqual({ urlEnv: "APP_DB", schema: "sales", table: "orders", events: ["insert"] });
    expect(describeTrigger(b!)).toBe("postgres $APP_DB sales.orders (insert)");
    const row = (extra: Record<string, unknown>) => [{ name: "p", kind: "postgres", target: "w", ...extra }];
    expect(() => parseConfigTriggers(row({ table: "t" }))).toThrow(/either "url".*or "urlEnv"/);
    expect(() => parseConfigTriggers(row({ url: "postgres://h/d", table: 'x"; drop' }))).toThrow(/plain identifiers/);
    expect(() => parseConfigTriggers(row({ url: "postgres://h/d", table: "t", events: ["truncate"] }))).toThrow(
      /"events" may hold insert, update, delete, got "truncate"/,
    );
  });

  it("parses an SQS row", () => {
    const [q] = parseConfigTriggers([
      { name: "q", kind: "sqs", target: "w", queueUrl: "https://sqs.eu-west-1.amazonaws.com/1/orders" },
    ]);
    expect(q!.options).toEqual({ queueUrl: "https://sqs.eu-west-1.amazonaws.com/1/orders" });
    expect(() => parseConfigTriggers([{ name: "q", kind: "sqs", target: "w", queueUrl: "orders" }])).toThrow(
      /"queueUrl" "orders" is not a URL/,
    );
  });

  it("parses a Kafka row", () => {
    const [k] = parseConfigTriggers([
      { name: "k", kind: "kafka", target: "w", brokers: ["b1:9092", "b2:9092"], topic: "orders", fromBeginning: true },
    ]);
    expect(k!.options).toEqual({ brokers: ["b1:9092", "b2:9092"], topics: ["orders"], fromBeginning: true });
    expect(describeTrigger(k!)).toBe("kafka b1:9092,b2:9092 orders");
    expect(() =>
      parseConfigTriggers([{ name: "k", kind: "kafka", target: "w", brokers: "kafka://b1", topic: "t" }]),
    ).toThrow(/"brokers" entries are host:port/);
  });

  it("reads an email row's STARTTLS certificate and AUTH options", () => {
    const [e] = parseConfigTriggers([
      {
        name: "in",
        kind: "email",
        target: "w",
        port: 2525,
        username: "u",
        passwordEnv: "P",
        tlsCertFile: "c.pem",
        tlsKeyFile: "k.pem",
        requireTls: true,
      },
    ]);
    expect(e!.options).toEqual({
      port: 2525,
      host: "127.0.0.1",
      maxBytes: 25 * 1024 * 1024,
      username: "u",
      passwordEnv: "P",
      tls: { certFile: "c.pem", keyFile: "k.pem" },
      requireTls: true,
    });
  });

  it("reads a gcp row: project, subscription, its topic, ack deadline", () => {
    const [g] = parseConfigTriggers([
      {
        name: "g",
        kind: "gcp",
        target: "w",
        projectId: "my-project",
        subscription: "s-1",
        topic: "t-1",
        ackDeadline: "20s",
      },
    ]);
    expect(g!.options).toEqual({
      projectId: "my-project",
      subscription: "s-1",
      topic: "t-1",
      ackDeadlineSeconds: 20,
      maxMessages: 100,
    });
    expect(describeTrigger(g!)).toBe("pubsub projects/my-project/subscriptions/s-1");
    expect(() =>
      parseConfigTriggers([
        { name: "g", kind: "gcp", target: "w", projectId: "p", subscription: "s-1", ackDeadline: "5s" },
      ]),
    ).toThrow(/"ackDeadline" must be between 10s and 600s/);
    expect(() =>
      parseConfigTriggers([{ name: "g", kind: "gcp", target: "w", projectId: "p", subscription: "1x" }]),
    ).toThrow(/"subscription" must be a Pub\/Sub id/);
  });

  it("names the row and field of every mistake", () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /"triggers" must be a list/],
      [[{ kind: "mqtt" }], /triggers\[0\]: "name" must be a short id/],
      [
        [{ name: "a", kind: "smtp", target: "x" }],
        /"kind" must be one of schedule, mqtt, nats, postgres, data_upload, email, kafka, sqs, gcp, webhook, got "smtp"/,
      ],
      [[{ name: "a", kind: "mqtt", target: "x", url: "http://h", topic: "t" }], /"url" must use mqtt:\/\//],
      [[{ name: "a", kind: "mqtt", target: "x", url: "mqtt://h" }], /"topic" must be a string or a non-empty list/],
      [[{ name: "a", kind: "mqtt", target: "x", url: "mqtt://h", topic: "t", qos: 2 }], /unknown option "qos"/],
      [[{ name: "a", kind: "nats", target: "x", url: "nats://h", stream: "S", ackWait: "10ms" }], /at least 1s/],
      [[{ name: "a", kind: "nats", target: "x", url: "nats://h", stream: "S", ackWait: "soon" }], /"ackWait": /],
      [
        [{ name: "g", kind: "gcp", target: "w", projectId: "p", subscription: "s-1", maxMessages: 0 }],
        /"maxMessages" must be a whole number of messages, e\.g\. 100/,
      ],
      [
        [{ name: "a", kind: "email", target: "x", port: 2525, maxBytes: 1.5 }],
        /"maxBytes" must be a whole number of bytes/,
      ],
      [
        [{ name: "a", kind: "data_upload", target: "x", maxBytes: "1MB" }],
        /"maxBytes" must be a whole number of bytes/,
      ],
      [
        [{ name: "a", kind: "webhook", target: "x", maxBytes: 0 }],
        /triggers\[0\] \(a\): "maxBytes" must be a whole number of bytes/,
      ],
      [[{ name: "a", kind: "webhook", target: "x", secret: "s" }], /unknown option "secret" \(known: maxBytes\)/],
      [[{ name: "a", kind: "nats", target: "x", url: "nats://h", stream: "S", idFrom: "body.id" }], /"idFrom".*\$\./],
      [
        [{ name: "a", kind: "email", target: "x", port: 2525, tlsCertFile: "c.pem" }],
        /"tlsCertFile" and "tlsKeyFile" go together/,
      ],
      [[{ name: "a", kind: "email", target: "x", port: 2525, requireTls: true }], /"requireTls" needs "tlsCertFile"/],
      [
        [
          { name: "a", kind: "nats", target: "x", url: "nats://h", stream: "S" },
          { name: "a", kind: "nats", target: "y", url: "nats://h", stream: "S" },
        ],
        /triggers\[1\]: "name" "a" is used by another trigger/,
      ],
    ];
    for (const [raw, message] of cases) expect(() => parseConfigTriggers(raw)).toThrow(message);
  });

  it("gives a pipeline row the id <script>:<kind> and the step as target", () => {
    const spec = parsePipelineRow(
      "mqtt",
      { url: "mqtt://127.0.0.1:1883", topics: ["a", "b"] },
      { path: "f/x/ingest.ts", name: "f/x/ingest" },
      "f/x/pipeline.json",
    );
    expect(spec).toMatchObject({
      id: "f/x/ingest:mqtt",
      target: { type: "pipeline", script: "f/x/ingest.ts", name: "f/x/ingest" },
      source: "f/x/pipeline.json",
    });
  });
});
