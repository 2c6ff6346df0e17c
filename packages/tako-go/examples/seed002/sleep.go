package seed002

import (
    "time"
    workflow "github.com/tako-sh/tako/sdk/go"
)

// sleepExample wraps the seed's sleep snippet ("Inside a registered Go workflow") in a function.
func sleepExample(ctx *workflow.WorkflowContext) error {
// Inside a registered Go workflow; import "time".
if err := ctx.Step.Sleep("wait-before-reminder", 24*time.Hour); err != nil {
    return err
}
    return nil
}

