module github.com/tako-sh/tako/sdk/go

go 1.19

require sluice.dev/sdk-go v0.0.0

replace sluice.dev/sdk-go => ../../sdk-go
