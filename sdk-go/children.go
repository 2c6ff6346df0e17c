package workflow

import (
	"encoding/json"
	"fmt"
)

// ChildOpts are the options of Steps.Child.
type ChildOpts struct {
	// Group runs the child in this worker group (default: the child workflow's).
	Group string
	// MaxAttempts of the child run (default: the child workflow's).
	MaxAttempts uint32
	// ConcurrencyKey with ConcurrencyLimit > 0: at most ConcurrencyLimit runs sharing
	// the key run at once, across all workers.
	ConcurrencyKey   string
	ConcurrencyLimit int
}

// ChildError is returned by Steps.Child when the child run failed or was cancelled.
// Returned from the handler, it fails the parent without retry (a retry would replay
// the same outcome).
type ChildError struct {
	// Key is the child's step key; Message and Code are the child's error.
	Key, Message, Code string
}

func (e *ChildError) Error() string {
	return fmt.Sprintf("sluice: child run %q failed: %s", e.Key, e.Message)
}

type childWrite struct {
	Key         string           `json:"key"`
	Position    int              `json:"position"`
	Workflow    string           `json:"workflow"`
	Payload     json.RawMessage  `json:"payload"`
	Group       string           `json:"group,omitempty"`
	MaxAttempts uint32           `json:"maxAttempts,omitempty"`
	Concurrency *concurrencyJSON `json:"concurrency,omitempty"`
}

type concurrencyJSON struct {
	Key   string `json:"key"`
	Limit int    `json:"limit"`
}

// Child runs the registered workflow `workflow` with payload (JSON-encoded) as a child
// run of this run, under the key name (name#n when it repeats), and decodes the child's
// result into out (a pointer, or nil). The first call parks the run (ErrParked: return
// it from the handler) and the run is claimed again once the child has finished; then
// Child returns its result, or a *ChildError when it failed or was cancelled. The
// child is any workflow the server knows: a Go one, or one of another worker.
func (s *Steps) Child(name, workflow string, payload any, out any, opts ...ChildOpts) error {
	e := s.exec
	var o ChildOpts
	if len(opts) > 0 {
		o = opts[0]
	}
	key, pos, err := e.next(name)
	if err != nil {
		return err
	}
	rec, err := e.lookup(key, "task")
	if err != nil {
		return err
	}
	switch {
	case rec != nil && rec.Status == "done":
		return decodeInto(rec.Value, out, key)
	case rec != nil && rec.Status == "error":
		ce := &ChildError{Key: key, Message: "the child run failed"}
		if rec.Error != nil {
			ce.Message, ce.Code = rec.Error.Message, rec.Error.Code
		}
		return &permanentError{ce}
	case rec != nil:
		// Still running: wait for it (and any other child of the run) to finish.
		return e.requestChildren(nil)
	}
	raw, merr := json.Marshal(payload)
	if merr != nil {
		return &permanentError{fmt.Errorf("sluice: child %q: its payload is not JSON-encodable: %w", key, merr)}
	}
	c := childWrite{Key: key, Position: pos, Workflow: workflow, Payload: raw, Group: o.Group, MaxAttempts: o.MaxAttempts}
	if o.ConcurrencyKey != "" && o.ConcurrencyLimit > 0 {
		c.Concurrency = &concurrencyJSON{Key: o.ConcurrencyKey, Limit: o.ConcurrencyLimit}
	}
	return e.requestChildren(&c)
}

// requestChildren records that the run must park until its children are finished,
// creating child c (when not nil) with the park.
func (e *execution) requestChildren(c *childWrite) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.park == nil {
		e.park = &parkRequest{}
	}
	e.park.AwaitChildren = true
	if c != nil {
		e.park.Children = append(e.park.Children, *c)
	}
	return ErrParked
}
