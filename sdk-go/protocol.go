package workflow

import "encoding/json"

// Messages of the worker protocol (docs/PROTOCOL.md).

type claimRequest struct {
	WorkerID  string   `json:"workerId"`
	Workflows []string `json:"workflows"`
	Limit     int      `json:"limit"`
	LeaseMs   int64    `json:"leaseMs"`
	WaitMs    int64    `json:"waitMs"`
	// Version: only runs unpinned or pinned to this code version ("" for any).
	Version string `json:"version,omitempty"`
}

type claim struct {
	RunID       string          `json:"runId"`
	Token       int64           `json:"token"`
	Workflow    string          `json:"workflow"`
	Payload     json.RawMessage `json:"payload"`
	Attempt     int             `json:"attempt"`
	MaxAttempts int             `json:"maxAttempts"`
	ClaimedAt   int64           `json:"claimedAt"`
	// DueAt (server clock, ms) is when the run became due; 0 from a server that does not send it.
	DueAt   int64          `json:"dueAt"`
	LeaseMs int64          `json:"leaseMs"`
	Steps   []journalEntry `json:"steps"`
	// Task is the function of Workflow a task child runs ("" for a workflow run).
	Task string `json:"task"`
	// Version is the code version the run is pinned to ("" when none).
	Version string `json:"version"`
	// Deadline (server clock, ms) of a task child with a timeout, and that timeout.
	Deadline  *int64 `json:"deadline,omitempty"`
	TimeoutMs int64  `json:"timeoutMs,omitempty"`
	// W3C trace context of this claim: the server's attempt span, else the one stored with
	// the run at enqueue (absent when there is neither).
	Traceparent string `json:"traceparent,omitempty"`
	Tracestate  string `json:"tracestate,omitempty"`
}

type journalEntry struct {
	Key    string          `json:"key"`
	Kind   string          `json:"kind"`
	Status string          `json:"status"`
	Value  json.RawMessage `json:"value"`
	// Error is a failed child's serialized error ({name, message, code?, …}), else null.
	Error    json.RawMessage `json:"error"`
	Target   *string         `json:"target"`
	ChildID  *string         `json:"childId"`
	Event    *string         `json:"event"`
	WakeAt   *int64          `json:"wakeAt"`
	Attempts int             `json:"attempts"`
	Position int             `json:"position"`
}

type stepWrite struct {
	Key         string          `json:"key"`
	Kind        string          `json:"kind"`
	Status      string          `json:"status"`
	Position    int             `json:"position"`
	Value       json.RawMessage `json:"value,omitempty"`
	Event       string          `json:"event,omitempty"`
	WakeAfterMs *int64          `json:"wakeAfterMs,omitempty"`
	Attempts    int             `json:"attempts,omitempty"`
	StartedAt   int64           `json:"startedAt,omitempty"`
}

type lease struct {
	RunID string `json:"runId"`
	Token int64  `json:"token"`
}

type errorJSON struct {
	Message string `json:"message"`
	Name    string `json:"name,omitempty"`
	Code    string `json:"code,omitempty"`
}

type logLine struct {
	Level   string `json:"level"`
	Message string `json:"message"`
	StepKey string `json:"stepKey,omitempty"`
	// Ts is when the line was logged (epoch ms, the claim's clock).
	Ts int64 `json:"ts,omitempty"`
}
