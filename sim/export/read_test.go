package export

import "github.com/parquet-go/parquet-go"

func readRows(path string) ([]Row, error) { return parquet.ReadFile[Row](path) }
