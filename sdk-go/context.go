package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// WorkflowContext is what a handler gets: the run's metadata, its durable steps
// (Step), a logger whose lines go to the run's log, and a context.Context that is
// cancelled when the claim's lease is lost or the worker gives up on it.
type WorkflowContext struct {
	context.Context
	// RunID identifies the run (stable across attempts: use it in idempotency keys).
	RunID string
	// WorkflowName is the registered name.
	WorkflowName string
	// Attempt is the 1-based run attempt.
	Attempt int
	// Task is the task this run executes ("" for a workflow run; see Steps.Task).
	Task string
	// Version is the code version the run is pinned to ("" when none).
	Version string
	// Step holds the durable operations: Run, Sleep, WaitFor.
	Step *Steps
	// Logger writes lines to the run's log.
	Logger *Logger
	// Traceparent is the W3C trace context of this claim ("" when it has none): the server's
	// span of this attempt when the server records traces, else the run's stored context. Pass
	// it to an OpenTelemetry propagator, or read it from the context with TraceContextFrom.
	Traceparent string
	// Tracestate goes with Traceparent ("" when there is none).
	Tracestate string
	// ClaimedAt is when this claim was made, on the server's clock.
	ClaimedAt time.Time
	// DueAt is when the run became due (its enqueue or run-at time, a sleep, retry backoff or
	// wait deadline coming due, a wake-up, a lease reclaimed), on the server's clock:
	// ClaimedAt.Sub(DueAt) is how long it waited in the queue. Zero (IsZero) when the
	// server does not send it.
	DueAt time.Time

	exec *execution
}

// Bail ends the run as cancelled, without retry. Return its result from the handler.
func (c *WorkflowContext) Bail(reason string) error {
	e := &BailError{Reason: reason}
	c.exec.setOutcome(e)
	return e
}

// Fail ends the run as failed ("dead"), without retry. Return its result from the handler.
func (c *WorkflowContext) Fail(err error) error {
	e := &FailError{Err: err}
	c.exec.setOutcome(e)
	return e
}

// SetResult sets the run's result (JSON-encoded): shown with the run, and what a parent's
// ctx.Step.Child decodes. It takes effect when the handler returns nil; the last call wins.
func (c *WorkflowContext) SetResult(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("sluice: the run's result is not JSON-encodable: %w", err)
	}
	c.exec.mu.Lock()
	c.exec.result = raw
	c.exec.mu.Unlock()
	return nil
}

// execution is one claim of one run: the journal to replay, the key allocator, and
// the writes made on the claim's behalf.
type execution struct {
	outbox    *outbox
	claim     claim
	received  time.Time
	ctx       context.Context
	cancel    context.CancelFunc
	inlineMax time.Duration
	// firstWrite is closed when the claim first sends a write (or ends).
	firstWrite chan struct{}
	firstOnce  sync.Once

	mu       sync.Mutex
	journal  map[string]journalEntry
	counts   map[string]int
	position int
	park     *parkRequest
	outcome  error
	result   json.RawMessage
	lost     bool
	logs     logBuffer
	// logTimer sends the buffered lines a while after the first (nil: none waits).
	logTimer *time.Timer
	// logsEnded: the claim's last lines were sent; later ones are dropped.
	logsEnded bool
	// logFailures counts the sends of lines that failed in a row (their next try waits longer).
	logFailures int
	// lostTold: stderr was told that this claim's lines are no longer written (its lease is lost).
	lostTold bool
	// flushMu orders the sends of the log lines (a flush in flight ends before the next).
	flushMu sync.Mutex
}

type parkRequest struct {
	Steps         []stepWrite  `json:"steps,omitempty"`
	WakeAfterMs   *int64       `json:"wakeAfterMs"`
	Children      []childWrite `json:"children,omitempty"`
	AwaitChildren bool         `json:"awaitChildren,omitempty"`
}

func newExecution(parent context.Context, ob *outbox, c claim, inlineMax time.Duration) *execution {
	ctx, cancel := context.WithCancel(parent)
	j := make(map[string]journalEntry, len(c.Steps))
	for _, s := range c.Steps {
		j[s.Key] = s
	}
	return &execution{outbox: ob, claim: c, received: time.Now(), ctx: ctx, cancel: cancel, inlineMax: inlineMax, firstWrite: make(chan struct{}), journal: j, counts: map[string]int{}}
}

// now is the server's clock: the claim time plus the time elapsed since.
func (e *execution) now() int64 {
	return e.claim.ClaimedAt + time.Since(e.received).Milliseconds()
}

// next allocates the key and position of the next durable call named name.
func (e *execution) next(name string) (string, int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.park != nil {
		return "", 0, ErrParked
	}
	if e.lost {
		return "", 0, ErrLeaseLost
	}
	e.counts[name]++
	key := name
	if n := e.counts[name]; n > 1 {
		key = fmt.Sprintf("%s#%d", name, n)
	}
	pos := e.position
	e.position++
	return key, pos, nil
}

// lookup returns the journal entry at key, checking it is of the kind asked for.
func (e *execution) lookup(key, kind string, pos int) (*journalEntry, error) {
	e.mu.Lock()
	rec, ok := e.journal[key]
	e.mu.Unlock()
	if !ok {
		return nil, nil
	}
	if rec.Kind != kind {
		return nil, &permanentError{&NonDeterminismError{Key: key, Position: pos, Recorded: rec.Kind, Requested: kind}}
	}
	return &rec, nil
}

// lookupTarget is lookup for a child call: an entry recorded for another target (task
// or workflow) is non-determinism too.
func (e *execution) lookupTarget(key, kind, target string, pos int) (*journalEntry, error) {
	rec, err := e.lookup(key, kind, pos)
	if err != nil || rec == nil {
		return rec, err
	}
	if rec.Target != nil && target != "" && *rec.Target != target {
		return nil, &permanentError{&NonDeterminismError{Key: key, Position: pos,
			Recorded: fmt.Sprintf("%s %q", kind, *rec.Target), Requested: fmt.Sprintf("%s %q", kind, target)}}
	}
	return rec, nil
}

// save checkpoints steps; ErrLeaseLost when the server refused the claim's token.
func (e *execution) save(steps ...stepWrite) error {
	err := e.write("steps", map[string]any{"token": e.claim.Token, "steps": steps}, nil)
	if err == nil {
		e.mu.Lock()
		for _, s := range steps {
			e.journal[s.Key] = journalEntry{Key: s.Key, Kind: s.Kind, Status: s.Status, Value: s.Value, Attempts: s.Attempts, Position: s.Position}
		}
		e.mu.Unlock()
	}
	return err
}

// requestPark records that the run must park; the worker writes it when the handler returns.
func (e *execution) requestPark(step *stepWrite, wakeAfterMs *int64) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.park == nil {
		e.park = &parkRequest{}
	}
	if step != nil {
		e.park.Steps = append(e.park.Steps, *step)
	}
	if wakeAfterMs != nil && (e.park.WakeAfterMs == nil || *wakeAfterMs < *e.park.WakeAfterMs) {
		w := *wakeAfterMs
		e.park.WakeAfterMs = &w
	}
	return ErrParked
}

func (e *execution) setOutcome(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.outcome == nil {
		e.outcome = err
	}
}

func (e *execution) markLost() {
	e.mu.Lock()
	e.lost = true
	e.mu.Unlock()
	e.cancel()
}

func (e *execution) isLost() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lost
}

// write sends a fenced write for this claim (op: steps, park, finish, logs) through the
// worker's outbox, retrying transport failures for up to a lease; a LEASE_LOST answer
// marks the claim lost.
func (e *execution) write(op string, body any, out any) error {
	e.wrote()
	var err error
	deadline := time.Now().Add(time.Duration(e.claim.LeaseMs) * time.Millisecond)
	for attempt := 0; ; attempt++ {
		err = e.outbox.send(op, e.claim.RunID, body, out)
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrLeaseLost) {
			e.markLost()
			return ErrLeaseLost
		}
		// The server answered: only a refused database write (503) is worth retrying.
		var api *APIError
		if (errors.As(err, &api) && api.Status != 503) || time.Now().After(deadline) || e.isLost() {
			return err
		}
		fmt.Fprintf(os.Stderr, "sluice worker: run %s: %s failed (%v); retrying\n", e.claim.RunID, op, err)
		time.Sleep(backoff(250*time.Millisecond, 5*time.Second, attempt+1))
	}
}

// wrote records that the claim has sent a write (or ended).
func (e *execution) wrote() { e.firstOnce.Do(func() { close(e.firstWrite) }) }

// decodeInto unmarshals a checkpointed JSON value into out (nil out: ignored).
func decodeInto(raw json.RawMessage, out any, key string) error {
	if out == nil {
		return nil
	}
	if len(raw) == 0 {
		raw = json.RawMessage("null")
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &permanentError{fmt.Errorf("sluice: step %q: its checkpointed value does not fit the out argument: %w", key, err)}
	}
	return nil
}

type traceKey struct{}

// TraceContext is a run's W3C trace context: what a propagator reads as the
// "traceparent" and "tracestate" headers.
type TraceContext struct {
	Traceparent string
	Tracestate  string
}

// TraceContextFrom returns the trace context of the run a handler's context belongs to
// (also from contexts derived from it), and false outside a run or when the run has none.
func TraceContextFrom(ctx context.Context) (TraceContext, bool) {
	tc, ok := ctx.Value(traceKey{}).(TraceContext)
	return tc, ok && tc.Traceparent != ""
}
