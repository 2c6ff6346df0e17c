package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// epochMs is the time of a protocol timestamp (ms since the epoch); the zero time for 0 (absent).
func epochMs(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// execute runs the handler of one claim and reports how it ended: parked, succeeded,
// cancelled (Bail), failed (Fail or a permanent error), or retry (any other error;
// the server applies the attempts left and the backoff).
func (w *Worker) execute(e *execution) {
	runCtx := context.WithValue(e.ctx, traceKey{}, TraceContext{Traceparent: e.claim.Traceparent, Tracestate: e.claim.Tracestate})
	wctx := &WorkflowContext{Context: runCtx, RunID: e.claim.RunID, WorkflowName: e.claim.Workflow, Attempt: e.claim.Attempt,
		Task: e.claim.Task, Version: e.claim.Version, Traceparent: e.claim.Traceparent, Tracestate: e.claim.Tracestate,
		ClaimedAt: time.UnixMilli(e.claim.ClaimedAt), DueAt: epochMs(e.claim.DueAt), exec: e}
	wctx.Step = &Steps{exec: e}
	wctx.Logger = &Logger{exec: e}
	handler := w.handlerOf(e.claim)
	var err error
	if e.claim.Deadline == nil {
		err = runHandler(handler, wctx, e.claim.Payload)
	} else {
		done := make(chan error, 1)
		go func() { done <- runHandler(handler, wctx, e.claim.Payload) }()
		timer := time.NewTimer(time.Duration(*e.claim.Deadline-e.now()) * time.Millisecond)
		select {
		case err = <-done:
			timer.Stop()
		case <-timer.C:
			w.timeOut(e)
			return
		}
	}
	e.endLogs()
	if e.isLost() {
		fmt.Fprintf(os.Stderr, "sluice worker: run %s: lost its lease; another claim owns it now\n", e.claim.RunID)
		return
	}
	e.mu.Lock()
	park, outcome, result := e.park, e.outcome, e.result
	e.mu.Unlock()
	var body map[string]any
	switch {
	case park != nil:
		body := map[string]any{"token": e.claim.Token, "wakeAfterMs": park.WakeAfterMs}
		if len(park.Steps) > 0 {
			body["steps"] = park.Steps
		}
		if park.AwaitChildren {
			chunks := parkChunks(park.Children, parkBytes)
			// A large fan-out: all but the last chunk are written first, under the fence.
			for _, chunk := range chunks[:len(chunks)-1] {
				if werr := e.write("children", map[string]any{"token": e.claim.Token, "children": chunk}, nil); werr != nil {
					fmt.Fprintf(os.Stderr, "sluice worker: run %s: could not write its children (%v)\n", e.claim.RunID, werr)
					return
				}
			}
			body["children"], body["awaitChildren"] = chunks[len(chunks)-1], true
		}
		if werr := e.write("park", body, nil); werr != nil {
			fmt.Fprintf(os.Stderr, "sluice worker: run %s: could not park (%v)\n", e.claim.RunID, werr)
		}
		return
	case outcome != nil:
		var bail *BailError
		if errors.As(outcome, &bail) {
			body = map[string]any{"outcome": "cancelled", "reason": bail.Reason}
		} else {
			body = map[string]any{"outcome": "failed", "error": errorBody(outcome.(*FailError).Err)}
		}
	case err == nil:
		body = map[string]any{"outcome": "succeeded", "result": result}
	default:
		var perm *permanentError
		if errors.As(err, &perm) {
			body = map[string]any{"outcome": "failed", "error": errorBody(err)}
		} else {
			body = map[string]any{"outcome": "retry", "error": errorBody(err)}
		}
	}
	body["token"] = e.claim.Token
	if werr := e.write("finish", body, nil); werr != nil {
		fmt.Fprintf(os.Stderr, "sluice worker: run %s: could not record its outcome (%v); it is retried when its lease expires\n", e.claim.RunID, werr)
	}
}

// parkBytes bounds the encoded children of one request, under the server's 1 MiB body limit.
var parkBytes = 512 * 1024

// parkChunks splits a park's children into chunks of at most budget bytes of JSON each
// (at least one child per chunk, always at least one chunk).
func parkChunks(children []childWrite, budget int) [][]childWrite {
	var chunks [][]childWrite
	var current []childWrite
	size := 0
	for _, c := range children {
		raw, _ := json.Marshal(c)
		n := len(raw) + 1
		if len(current) > 0 && size+n > budget {
			chunks = append(chunks, current)
			current, size = nil, 0
		}
		current = append(current, c)
		size += n
	}
	return append(chunks, current)
}

// handlerOf is the function a claim runs: its workflow's handler or one of its tasks.
// A task's error is permanent (its run fails without retry); an unknown task fails the run.
func (w *Worker) handlerOf(c claim) HandlerFunc {
	def := w.defs[c.Workflow]
	if c.Task == "" {
		return def.handler
	}
	fn := def.tasks[c.Task]
	if fn == nil {
		return func(*WorkflowContext, json.RawMessage) error {
			return &permanentError{fmt.Errorf("sluice: workflow %q has no task %q in this worker (register it with WithTask)", c.Workflow, c.Task)}
		}
	}
	return func(ctx *WorkflowContext, payload json.RawMessage) error {
		err := fn(ctx, payload)
		if err == nil || errors.Is(err, ErrParked) || errors.Is(err, ErrLeaseLost) {
			return err
		}
		var perm *permanentError
		if errors.As(err, &perm) {
			return err
		}
		return &permanentError{err}
	}
}

// timeOut fails a task child whose deadline passed while its function ran: the claim is
// given up (the function's later writes are dropped) and the run fails with TASK_TIMEOUT.
func (w *Worker) timeOut(e *execution) {
	e.markLost()
	e.endLogs()
	msg := fmt.Sprintf("task timed out after %g s", float64(e.claim.TimeoutMs)/1000)
	body := map[string]any{"token": e.claim.Token, "outcome": "failed",
		"error": errorJSON{Message: msg, Name: "TaskTimeout", Code: "TASK_TIMEOUT"}}
	if err := e.write("finish", body, nil); err != nil && !errors.Is(err, ErrLeaseLost) {
		fmt.Fprintf(os.Stderr, "sluice worker: run %s: could not record its timeout (%v)\n", e.claim.RunID, err)
	}
}

func runHandler(h HandlerFunc, ctx *WorkflowContext, payload json.RawMessage) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("workflow panicked: %v", r)
		}
	}()
	if len(payload) == 0 {
		payload = json.RawMessage("null")
	}
	return h(ctx, payload)
}

func errorBody(err error) errorJSON {
	if err == nil {
		return errorJSON{Message: "failed", Name: "Error"}
	}
	out := errorJSON{Message: err.Error(), Name: fmt.Sprintf("%T", err)}
	var api *APIError
	if errors.As(err, &api) {
		out.Code = api.Code
	}
	return out
}
