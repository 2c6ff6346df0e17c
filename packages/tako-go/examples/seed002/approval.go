package seed002

import (
    "time"
    workflow "github.com/tako-sh/tako/sdk/go"
)

type ApprovalDecision struct {
    Approved bool   `json:"approved"`
    By       string `json:"by"`
}

func waitForApproval(ctx *workflow.WorkflowContext, orderID string) error {
    var decision *ApprovalDecision
    if err := ctx.Step.WaitFor("approval:order-"+orderID, &decision, 7*24*time.Hour); err != nil {
        return err
    }
    if decision == nil { return ctx.Bail("approval timed out") }
    if !decision.Approved { return ctx.Bail("approval rejected") }
    return nil
}
