module sluice.dev/sdk-go

go 1.19
