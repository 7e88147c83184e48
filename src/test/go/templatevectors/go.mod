module gogen
go 1.19
