package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// EnqueueOpts are the options of Enqueue; nil fields take the workflow's defaults.
type EnqueueOpts struct {
	// RunAt: do not start the run before this time.
	RunAt *time.Time
	// ID names the run: the same ID, workflow and payload return the existing run.
	ID *string
	// MaxAttempts counts the first attempt and every retry.
	MaxAttempts *uint32
	// Concurrency: at most Limit runs sharing Key run at once, across all workers
	// (honoured at claim); Window > 0 also limits how many start within any such window.
	Concurrency *Concurrency
}

// Concurrency is a concurrency limit of EnqueueOpts.
type Concurrency struct {
	Key    string
	Limit  int
	Window time.Duration
}

// EnqueueResult is what Enqueue returns.
type EnqueueResult struct {
	ID string
	// Deduplicated is true when a run with this ID already existed.
	Deduplicated bool
}

// Enqueue creates a run of the workflow `name` with a JSON-encodable payload, on the
// server named by SLUICE_URL.
func Enqueue(ctx context.Context, name string, payload any, opts EnqueueOpts) (*EnqueueResult, error) {
	c, err := ClientFromEnv()
	if err != nil {
		return nil, err
	}
	return c.Enqueue(ctx, name, payload, opts)
}

// Enqueue creates a run through this client; see the package-level Enqueue.
func (c *Client) Enqueue(ctx context.Context, name string, payload any, opts EnqueueOpts) (*EnqueueResult, error) {
	body := map[string]any{"workflow": name, "payload": payload}
	if opts.ID != nil {
		body["id"] = *opts.ID
	}
	if opts.RunAt != nil {
		body["runAt"] = opts.RunAt.UTC().Format(time.RFC3339Nano)
	}
	if opts.MaxAttempts != nil {
		if *opts.MaxAttempts == 0 {
			return nil, errors.New("sluice: EnqueueOpts.MaxAttempts must be at least 1 (it counts the first attempt)")
		}
		body["retries"] = *opts.MaxAttempts - 1
	}
	if c := opts.Concurrency; c != nil {
		if c.Key == "" || c.Limit < 1 {
			return nil, errors.New("sluice: EnqueueOpts.Concurrency needs a Key and a Limit of at least 1")
		}
		limit := map[string]any{"key": c.Key, "limit": c.Limit}
		if c.Window > 0 {
			limit["windowMs"] = c.Window.Milliseconds()
		}
		body["concurrency"] = limit
	}
	var out struct {
		Run          struct{ ID string } `json:"run"`
		Deduplicated bool                `json:"deduplicated"`
	}
	if err := c.post(ctx, "/api/runs", body, &out); err != nil {
		return nil, err
	}
	return &EnqueueResult{ID: out.Run.ID, Deduplicated: out.Deduplicated}, nil
}

// SignalOpts are the options of Signal (beyond seed 002, as the TypeScript SDK's `signal`).
type SignalOpts struct {
	// Buffer > 0 keeps a signal that wakes no run this long, for the next WaitFor on the
	// event (oldest first, each once); without it such a signal is dropped. A signal that
	// wakes runs is never kept.
	Buffer time.Duration
}

// Signal wakes every run waiting on `event` (ctx.Step.WaitFor) with a JSON-encodable
// payload and returns how many it woke. An optional SignalOpts keeps a signal no run
// waits on yet: Signal(ctx, event, payload, SignalOpts{Buffer: time.Hour}).
func Signal(ctx context.Context, event string, payload any, opts ...SignalOpts) (uint64, error) {
	c, err := ClientFromEnv()
	if err != nil {
		return 0, err
	}
	return c.Signal(ctx, event, payload, opts...)
}

// Signal sends a signal through this client; see the package-level Signal.
func (c *Client) Signal(ctx context.Context, event string, payload any, opts ...SignalOpts) (uint64, error) {
	body := map[string]any{"event": event, "payload": payload}
	if len(opts) > 1 {
		return 0, errors.New("sluice: Signal takes at most one SignalOpts")
	}
	for _, o := range opts {
		if o.Buffer < 0 {
			return 0, fmt.Errorf("sluice: SignalOpts.Buffer must not be negative, got %v", o.Buffer)
		}
		if o.Buffer > 0 {
			body["buffer"] = o.Buffer.Milliseconds()
		}
	}
	var out struct {
		Woke uint64 `json:"woke"`
	}
	if err := c.post(ctx, "/api/signals", body, &out); err != nil {
		return 0, err
	}
	return out.Woke, nil
}
