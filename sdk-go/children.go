package workflow

import (
	"encoding/json"
	"fmt"
	"time"
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
	// Priority: higher is claimed first (default 0).
	Priority int
	// Timeout fails the child once it has run this long since its first start (task
	// children run by this SDK enforce it; 0: none).
	Timeout time.Duration
	// CacheTTL: a run of the same task (or workflow) and payload that succeeded within
	// this long answers the call at once, without a new child (0: no cache).
	CacheTTL time.Duration
}

// ChildError is returned by Steps.Child when the child run failed or was cancelled.
// Returned from the handler, it fails the parent without retry (a retry would replay
// the same outcome).
type ChildError struct {
	// Key is the child's step key; Message and Code are the child's error.
	Key, Message, Code string
	// ChildID is the child run's id; Result is its serialized error ({name, message,
	// code?, …}). Both come from the journal, so they are the same on every replay.
	ChildID string
	Result  json.RawMessage
}

// childError is the *ChildError of a journal entry of status "error".
func childError(key string, rec *journalEntry) *ChildError {
	ce := &ChildError{Key: key, Message: "the child run failed", Result: rec.Error}
	var body errorJSON
	if len(rec.Error) > 0 && json.Unmarshal(rec.Error, &body) == nil && body.Message != "" {
		ce.Message, ce.Code = body.Message, body.Code
	}
	if rec.ChildID != nil {
		ce.ChildID = *rec.ChildID
	}
	return ce
}

func (e *ChildError) Error() string {
	return fmt.Sprintf("sluice: child run %q failed: %s", e.Key, e.Message)
}

type childWrite struct {
	Key         string           `json:"key"`
	Position    int              `json:"position"`
	Workflow    string           `json:"workflow,omitempty"`
	Task        string           `json:"task,omitempty"`
	Priority    int              `json:"priority,omitempty"`
	TimeoutMs   int64            `json:"timeoutMs,omitempty"`
	CacheTTLMs  int64            `json:"cacheTtlMs,omitempty"`
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
	return s.child(name, workflow, "", payload, out, opts)
}

// Task runs the function `task` of this run's own workflow (registered with WithTask)
// as a child run under the key name, pinned to this run's code version, and decodes its
// result into out, as Child does: the first call parks the run; a failed task returns a
// *ChildError (with ChildID and the child's serialized error as Result).
func (s *Steps) Task(name, task string, payload any, out any, opts ...ChildOpts) error {
	return s.child(name, "", task, payload, out, opts)
}

func (s *Steps) child(name, workflow, task string, payload any, out any, opts []ChildOpts) error {
	e := s.exec
	var o ChildOpts
	if len(opts) > 0 {
		o = opts[0]
	}
	key, pos, err := e.next(name)
	if err != nil {
		return err
	}
	rec, err := e.lookupTarget(key, "task", childTarget(workflow, task), pos)
	if err != nil {
		return err
	}
	switch {
	case rec != nil && rec.Status == "done":
		return decodeInto(rec.Value, out, key)
	case rec != nil && rec.Status == "error":
		return &permanentError{childError(key, rec)}
	case rec != nil:
		// Still running: wait for it (and any other child of the run) to finish.
		return e.requestChildren(nil)
	}
	c, err := newChildWrite(key, pos, workflow, task, payload, o)
	if err != nil {
		return err
	}
	return e.requestChildren(&c)
}

// childTarget is what a child call's key points at (the journal's target).
func childTarget(workflow, task string) string {
	if task != "" {
		return task
	}
	return workflow
}

// newChildWrite is a park's entry for a new child.
func newChildWrite(key string, pos int, workflow, task string, payload any, o ChildOpts) (childWrite, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return childWrite{}, &permanentError{fmt.Errorf("sluice: child %q: its payload is not JSON-encodable: %w", key, err)}
	}
	if workflow == "" && task == "" {
		return childWrite{}, &permanentError{fmt.Errorf("sluice: child %q needs a workflow or a task", key)}
	}
	if o.Timeout < 0 || o.CacheTTL < 0 {
		return childWrite{}, &permanentError{fmt.Errorf("sluice: child %q: Timeout and CacheTTL must not be negative", key)}
	}
	c := childWrite{Key: key, Position: pos, Workflow: workflow, Task: task, Payload: raw, Group: o.Group,
		MaxAttempts: o.MaxAttempts, Priority: o.Priority, TimeoutMs: ceilMs(o.Timeout), CacheTTLMs: ceilMs(o.CacheTTL)}
	if o.ConcurrencyKey != "" && o.ConcurrencyLimit > 0 {
		c.Concurrency = &concurrencyJSON{Key: o.ConcurrencyKey, Limit: o.ConcurrencyLimit}
	}
	return c, nil
}

// ceilMs is d in whole milliseconds, at least 1 when d > 0.
func ceilMs(d time.Duration) int64 {
	ms := d.Milliseconds()
	if d > 0 && ms == 0 {
		return 1
	}
	return ms
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
