package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// The outbox sends the fenced writes of all the worker's claims (checkpoints, parks,
// finishes, logs) to POST /api/worker/batch. One batch is in flight at a time; the
// writes made meanwhile wait and go together in the next one, so 200 runs checkpointing
// at once cost one round trip and one server transaction, not 200. Nothing is
// acknowledged early: a write's answer is the server's, after its commit, and
// Steps.Run returns only then (docs/PROTOCOL.md). An idle outbox sends a write at once.

const (
	// maxBatchWrites is the most writes one batch carries (the server takes up to 1000).
	maxBatchWrites = 500
	// maxBatchBytes keeps a batch well under the server's 1 MiB body limit.
	maxBatchBytes = 512 << 10
	// batchTimeout bounds one batch request.
	batchTimeout = 30 * time.Second
)

type batchWrite struct {
	Op    string          `json:"op"`
	RunID string          `json:"runId"`
	Body  json.RawMessage `json:"body"`
}

type batchResult struct {
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

type queuedWrite struct {
	w    batchWrite
	done chan error
	out  any
}

type outbox struct {
	client *Client
	queue  chan *queuedWrite

	mu       sync.Mutex
	noBatch  bool // the server has no batch route: send each write to its own route
	stopOnce sync.Once
	stopped  chan struct{}
}

func newOutbox(c *Client) *outbox {
	o := &outbox{client: c, queue: make(chan *queuedWrite, 4096), stopped: make(chan struct{})}
	go o.loop()
	return o
}

// send posts one write of run runID (op: steps, park, finish, logs) and decodes its
// answer into out (when not nil); the error is the write's own (*APIError, transport).
func (o *outbox) send(op, runID string, body any, out any) error {
	return <-o.enqueue(op, runID, body, out)
}

// enqueue queues a write and returns the channel its result arrives on.
func (o *outbox) enqueue(op, runID string, body any, out any) <-chan error {
	done := make(chan error, 1)
	raw, err := json.Marshal(body)
	if err != nil {
		done <- fmt.Errorf("sluice: encoding the %s write of run %s: %w", op, runID, err)
		return done
	}
	q := &queuedWrite{w: batchWrite{Op: op, RunID: runID, Body: raw}, done: done, out: out}
	if len(raw) > maxBatchBytes/2 || o.batchless() {
		// A large write goes alone, on its own route (it would crowd a batch out).
		go func() { done <- o.single(q) }()
		return done
	}
	o.queue <- q
	return done
}

func (o *outbox) close() { o.stopOnce.Do(func() { close(o.stopped) }) }

func (o *outbox) batchless() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.noBatch
}

func (o *outbox) loop() {
	for {
		var first *queuedWrite
		select {
		case first = <-o.queue:
		case <-o.stopped:
			return
		}
		batch, size := []*queuedWrite{first}, len(first.w.Body)
	gather:
		for len(batch) < maxBatchWrites && size < maxBatchBytes/2 {
			select {
			case q := <-o.queue:
				batch = append(batch, q)
				size += len(q.w.Body)
			default:
				break gather
			}
		}
		o.flush(batch)
	}
}

// flush sends one batch and hands each write its own answer.
func (o *outbox) flush(batch []*queuedWrite) {
	writes := make([]batchWrite, len(batch))
	for i, q := range batch {
		writes[i] = q.w
	}
	var out struct {
		Results []batchResult `json:"results"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	err := o.client.post(ctx, "/api/worker/batch", map[string]any{"writes": writes}, &out)
	cancel()
	var api *APIError
	if errors.As(err, &api) && api.Status == 404 && api.Code == "NOT_FOUND" {
		// A server from before the batch route: fall back to one request per write.
		o.mu.Lock()
		o.noBatch = true
		o.mu.Unlock()
		for _, q := range batch {
			q := q
			go func() { q.done <- o.single(q) }()
		}
		return
	}
	if err == nil && len(out.Results) != len(batch) {
		err = fmt.Errorf("sluice: the server answered %d results for a batch of %d writes", len(out.Results), len(batch))
	}
	for i, q := range batch {
		if err != nil {
			q.done <- err
			continue
		}
		q.done <- decodeResult(out.Results[i], q)
	}
}

// single sends one write to its own route (POST /api/worker/runs/{id}/{op}).
func (o *outbox) single(q *queuedWrite) error {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	return o.client.post(ctx, "/api/worker/runs/"+pathEscape(q.w.RunID)+"/"+q.w.Op, q.w.Body, q.out)
}

func decodeResult(r batchResult, q *queuedWrite) error {
	if r.Status < 200 || r.Status > 299 {
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if json.Unmarshal(r.Body, &e) != nil || e.Error.Code == "" {
			return &APIError{Status: r.Status, Code: "HTTP_ERROR", Message: string(r.Body)}
		}
		return &APIError{Status: r.Status, Code: e.Error.Code, Message: e.Error.Message}
	}
	if q.out == nil {
		return nil
	}
	if err := json.Unmarshal(r.Body, q.out); err != nil {
		return fmt.Errorf("sluice: unreadable answer to the %s write of run %s: %w", q.w.Op, q.w.RunID, err)
	}
	return nil
}
