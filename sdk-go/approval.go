package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ApprovalOpts are the options of Steps.WaitForApproval.
type ApprovalOpts struct {
	// Timeout after which the approval counts as rejected (default 30 minutes).
	Timeout time.Duration
	// Form the approver fills in (fields, or a JSON schema); nil for none.
	Form map[string]any
	// NoSelfApproval: the user who started the run cannot decide.
	NoSelfApproval bool
}

// ApprovalResult is a decided (or timed-out) approval.
type ApprovalResult struct {
	// Approved is false when rejected or timed out.
	Approved bool `json:"approved"`
	// Approver is who decided (empty when timed out).
	Approver string `json:"approver"`
	// Value is the form data (JSON null without a form, or when rejected).
	Value json.RawMessage `json:"value"`
}

// approvalKey is the key base of approvals, as in workflows as code (and the diagram).
const approvalKey = "waitForApproval"

// WaitForApproval parks the run until a person approves or rejects it (the UI's approval
// page, `sluice approve`, POST /api/runs/{id}/approvals/{key}), or the timeout passes (then
// Approved is false and Approver empty). The first call returns ErrParked: return it.
func (s *Steps) WaitForApproval(opts ApprovalOpts) (*ApprovalResult, error) {
	e := s.exec
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 30 * time.Minute
	}
	if timeout < time.Millisecond {
		return nil, &permanentError{errors.New("sluice: WaitForApproval needs a positive Timeout")}
	}
	key, pos, err := e.next(approvalKey)
	if err != nil {
		return nil, err
	}
	rec, err := e.lookup(key, "approval", pos)
	if err != nil {
		return nil, err
	}
	if rec != nil && rec.Status == "done" {
		var out ApprovalResult
		if err := decodeInto(rec.Value, &out, key); err != nil {
			return nil, err
		}
		return &out, nil
	}
	if rec != nil {
		if rec.WakeAt != nil {
			if left := *rec.WakeAt - e.now(); left > 0 {
				return nil, e.requestPark(nil, &left)
			}
		} else {
			return nil, e.requestPark(nil, nil)
		}
		timedOut := ApprovalResult{Value: json.RawMessage("null")}
		raw, _ := json.Marshal(timedOut)
		if err := e.save(stepWrite{Key: key, Kind: "approval", Status: "done", Position: pos, Value: raw}); err != nil {
			return nil, err
		}
		e.log("warn", "approval \""+key+"\" timed out after "+timeout.String(), key)
		return &timedOut, nil
	}
	request, err := json.Marshal(map[string]any{"form": opts.Form, "selfApproval": !opts.NoSelfApproval, "timeout": timeout.Seconds()})
	if err != nil {
		return nil, &permanentError{err}
	}
	ms := timeout.Milliseconds()
	return nil, e.requestPark(&stepWrite{Key: key, Kind: "approval", Status: "pending", Position: pos, Value: request, WakeAfterMs: &ms}, &ms)
}

// ResumeURLs are the signed links of one approval wait: ApprovalPage shows the
// approval page (with its form), Resume approves (POST, an optional JSON body is the
// form value) and Cancel rejects. Each link is its own credential, valid for 30 days
// and only while its wait is pending.
type ResumeURLs struct {
	ApprovalPage string `json:"approvalPage"`
	Resume       string `json:"resume"`
	Cancel       string `json:"cancel"`
}

// GetResumeURLs returns the links of the run's next WaitForApproval (seed 000's
// getResumeUrls), to send to the approver before waiting. A non-empty approver binds the
// links to that person. Each call signs new links: call it inside Steps.Run so a replay
// returns the links already sent:
//
//	var links workflow.ResumeURLs
//	err := ctx.Step.Run("links", &links, func() (any, error) { return ctx.Step.GetResumeURLs("") })
func (s *Steps) GetResumeURLs(approver string) (*ResumeURLs, error) {
	e := s.exec
	e.mu.Lock()
	if e.park != nil {
		e.mu.Unlock()
		return nil, ErrParked
	}
	key := approvalKey
	if n := e.counts[approvalKey] + 1; n > 1 {
		key = fmt.Sprintf("%s#%d", approvalKey, n)
	}
	e.mu.Unlock()
	body := map[string]any{"token": e.claim.Token, "key": key}
	if approver != "" {
		body["approver"] = approver
	}
	var out ResumeURLs
	err := e.outbox.client.post(e.ctx, "/api/worker/runs/"+pathEscape(e.claim.RunID)+"/resume-urls", body, &out)
	if errors.Is(err, ErrLeaseLost) {
		e.markLost()
		return nil, ErrLeaseLost
	}
	if err != nil {
		return nil, err
	}
	return &out, nil
}
