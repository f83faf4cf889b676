module glia-examples

go 1.19

require glia v0.0.0

replace glia => ../../bindings/go
