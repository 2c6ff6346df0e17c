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
// Steps.Run returns only then (docs/PROTOCOL.md). An idle outbox sends a write at once,
// from the writing goroutine itself.

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

	mu      sync.Mutex
	noBatch bool // the server has no batch route: send each write to its own route
	busy    bool // a batch is in flight; writes made meanwhile wait in pending
	pending []*queuedWrite
}

func newOutbox(c *Client) *outbox {
	return &outbox{client: c}
}

// send posts one write of run runID (op: steps, park, finish, logs) and decodes its
// answer into out (when not nil); the error is the write's own (*APIError, transport).
// On an idle outbox the calling goroutine sends the write itself (no hand-off to another
// goroutine and back); otherwise the write waits for the next batch.
func (o *outbox) send(op, runID string, body any, out any) error {
	q, alone := o.prepare(op, runID, body, out)
	if alone {
		return <-q.done
	}
	o.mu.Lock()
	if !o.busy {
		o.busy = true
		o.mu.Unlock()
		o.flush([]*queuedWrite{q})
		o.release()
		return <-q.done
	}
	o.pending = append(o.pending, q)
	o.mu.Unlock()
	return <-q.done
}

// prepare encodes a write; alone is true when it is already on its way (or failed to
// encode) outside the batches: a large write goes alone, on its own route.
func (o *outbox) prepare(op, runID string, body any, out any) (*queuedWrite, bool) {
	done := make(chan error, 1)
	raw, err := json.Marshal(body)
	q := &queuedWrite{w: batchWrite{Op: op, RunID: runID, Body: raw}, done: done, out: out}
	if err != nil {
		done <- fmt.Errorf("sluice: encoding the %s write of run %s: %w", op, runID, err)
		return q, true
	}
	if len(raw) > maxBatchBytes/2 || o.batchless() {
		go func() { done <- o.single(q) }()
		return q, true
	}
	return q, false
}

// release ends the batch in flight: the writes that queued meanwhile go in the next one.
func (o *outbox) release() {
	o.mu.Lock()
	if len(o.pending) == 0 {
		o.busy = false
		o.mu.Unlock()
		return
	}
	o.mu.Unlock()
	go o.drain()
}

// drain sends the pending writes, a batch at a time, until none is left.
func (o *outbox) drain() {
	for {
		o.mu.Lock()
		if len(o.pending) == 0 {
			o.busy = false
			o.mu.Unlock()
			return
		}
		n, size := 0, 0
		for n < len(o.pending) && n < maxBatchWrites && (n == 0 || size+len(o.pending[n].w.Body) <= maxBatchBytes/2) {
			size += len(o.pending[n].w.Body)
			n++
		}
		batch := append([]*queuedWrite(nil), o.pending[:n]...)
		o.pending = append(o.pending[:0], o.pending[n:]...)
		o.mu.Unlock()
		o.flush(batch)
	}
}

func (o *outbox) batchless() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.noBatch
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

// decodeResult turns one write's entry of a batch's results (its status and body, as the
// write's own route would have answered) into the write's error, or decodes the body into q.out.
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
