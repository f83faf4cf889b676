module glia

go 1.19
