package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"net/url"
	"time"
)

// Steps are the durable operations of a run (ctx.Step).
type Steps struct{ exec *execution }

// StepRunOpts are the options of Steps.Run.
type StepRunOpts struct {
	// Retries after the first try of the step body, before the error reaches the run (default 0).
	Retries int
	// NoRetry makes an error of this step permanent: the run fails without retry.
	NoRetry bool
	// Backoff between step retries: Base doubles per try, capped at Max, 20% jitter
	// (defaults 1 s and 60 s).
	Backoff struct {
		Base time.Duration
		Max  time.Duration
	}
}

// Run runs fn once and checkpoints its JSON-encoded result under the key name (or
// name#n when the name repeats); on a later claim of the run, the checkpoint is
// decoded into out (a pointer, or nil) and fn is not called again. Bodies run at
// least once: a crash after fn returns but before the checkpoint repeats it.
func (s *Steps) Run(name string, out any, fn func() (any, error), opts ...StepRunOpts) error {
	e := s.exec
	var o StepRunOpts
	if len(opts) > 0 {
		o = opts[0]
	}
	if name == "" {
		return &permanentError{errors.New("sluice: ctx.Step.Run needs a stable, non-empty name (it is the checkpoint key)")}
	}
	key, pos, err := e.next(name)
	if err != nil {
		return err
	}
	rec, err := e.lookup(key, "step", pos)
	if err != nil {
		return err
	}
	if rec != nil && rec.Status == "done" {
		return decodeInto(rec.Value, out, key)
	}
	spent := 0
	if rec != nil {
		spent = rec.Attempts
		if rec.WakeAt != nil {
			if wait := *rec.WakeAt - e.now(); wait > e.inlineMax.Milliseconds() {
				return e.requestPark(nil, &wait)
			} else if wait > 0 {
				if err := e.sleep(time.Duration(wait) * time.Millisecond); err != nil {
					return err
				}
			}
		}
	}
	base, max := o.Backoff.Base, o.Backoff.Max
	if base <= 0 {
		base = time.Second
	}
	if max <= 0 {
		max = time.Minute
	}
	started := e.now()
	for {
		if e.isLost() {
			return ErrLeaseLost
		}
		spent++
		value, ferr := callBody(fn)
		if ferr == nil {
			raw, merr := json.Marshal(value)
			if merr != nil {
				return &permanentError{fmt.Errorf("sluice: step %q: its result is not JSON-encodable: %w", key, merr)}
			}
			if err := e.save(stepWrite{Key: key, Kind: "step", Status: "done", Position: pos, Value: raw, Attempts: spent, StartedAt: started}); err != nil {
				return err
			}
			return decodeInto(raw, out, key)
		}
		if o.NoRetry {
			return &permanentError{ferr}
		}
		if spent > o.Retries {
			return ferr
		}
		delay := backoff(base, max, spent)
		e.log("warn", fmt.Sprintf("step %q attempt %d failed (%v); retrying in %d ms", key, spent, ferr, delay.Milliseconds()), key)
		if delay > e.inlineMax {
			ms := delay.Milliseconds()
			return e.requestPark(&stepWrite{Key: key, Kind: "step", Status: "pending", Position: pos, Attempts: spent, WakeAfterMs: &ms, StartedAt: started}, &ms)
		}
		if err := e.sleep(delay); err != nil {
			return err
		}
	}
}

// Sleep pauses the run durably for d under the key name. Up to 30 s it waits in the
// worker; longer, it parks the run (returns ErrParked) and the run wakes on a later
// claim. The wake time survives worker and server restarts.
func (s *Steps) Sleep(name string, d time.Duration) error {
	e := s.exec
	key, pos, err := e.next(name)
	if err != nil {
		return err
	}
	rec, err := e.lookup(key, "sleep", pos)
	if err != nil {
		return err
	}
	if rec != nil && rec.Status == "done" {
		return nil
	}
	remaining := d.Milliseconds()
	if rec != nil {
		remaining = 0
		if rec.WakeAt != nil {
			remaining = *rec.WakeAt - e.now()
		}
	}
	done := func() error { return e.save(stepWrite{Key: key, Kind: "sleep", Status: "done", Position: pos}) }
	if remaining <= 0 {
		return done()
	}
	if time.Duration(remaining)*time.Millisecond <= e.inlineMax {
		if rec == nil {
			if err := e.save(stepWrite{Key: key, Kind: "sleep", Status: "pending", Position: pos, WakeAfterMs: &remaining, StartedAt: e.now()}); err != nil {
				return err
			}
		}
		if err := e.sleep(time.Duration(remaining) * time.Millisecond); err != nil {
			return err
		}
		return done()
	}
	if rec != nil {
		return e.requestPark(nil, &remaining)
	}
	return e.requestPark(&stepWrite{Key: key, Kind: "sleep", Status: "pending", Position: pos, WakeAfterMs: &remaining}, &remaining)
}

// WaitFor parks the run until a signal named name arrives (Signal, `sluice signal`,
// POST /api/signals) and decodes its payload into out (a pointer, or nil). With a
// timeout > 0 and no signal by then, out is set to its JSON null (a nil pointer for
// a pointer-to-pointer). The first call returns ErrParked; return it from the handler.
func (s *Steps) WaitFor(name string, out any, timeout time.Duration) error {
	e := s.exec
	key, pos, err := e.next(name)
	if err != nil {
		return err
	}
	rec, err := e.lookup(key, "wait", pos)
	if err != nil {
		return err
	}
	if rec != nil && rec.Status == "done" {
		return decodeInto(rec.Value, out, key)
	}
	if rec != nil {
		if rec.WakeAt == nil {
			return e.requestPark(nil, nil)
		}
		left := *rec.WakeAt - e.now()
		if left > 0 {
			return e.requestPark(nil, &left)
		}
		if err := e.save(stepWrite{Key: key, Kind: "wait", Status: "done", Position: pos, Value: json.RawMessage("null"), Event: name}); err != nil {
			return err
		}
		return decodeInto(nil, out, key)
	}
	var wake *int64
	if timeout > 0 {
		ms := timeout.Milliseconds()
		wake = &ms
	}
	return e.requestPark(&stepWrite{Key: key, Kind: "wait", Status: "pending", Position: pos, Event: name, WakeAfterMs: wake}, wake)
}

// sleep waits d, or returns ErrLeaseLost once the claim is lost.
func (e *execution) sleep(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-e.ctx.Done():
		return ErrLeaseLost
	}
}

// callBody runs a step body, turning a panic into an error.
func callBody(fn func() (any, error)) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("step panicked: %v", r)
		}
	}()
	return fn()
}

// backoff is base*2^(n-1) with ±20% jitter, capped at max (n is the failed try, from 1).
func backoff(base, max time.Duration, n int) time.Duration {
	raw := math.Min(float64(max), float64(base)*math.Pow(2, float64(n-1)))
	j := raw * (0.8 + 0.4*rand.Float64())
	return time.Duration(math.Min(float64(max), j))
}

func pathEscape(s string) string { return url.PathEscape(s) }
