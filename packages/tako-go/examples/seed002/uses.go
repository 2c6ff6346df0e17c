package seed002

// Exported so the unexported seed functions count as used.
var (
	EnqueueOrder        = enqueueOrder
	EnqueueDelayedOrder = enqueueDelayedOrder
	CallProviderStep    = callProviderStep
	SleepExample        = sleepExample
	WaitForApproval     = waitForApproval
	ApproveOrder        = approveOrder
)
