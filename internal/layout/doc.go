// Package layout holds no code: its test keeps the import graph of the
// README's layout table ("arrows only point down the table"), for every
// package of the module at once.
package layout
