//go:build !linux

package main

// threadCPUSeconds is not available here.
func threadCPUSeconds() float64 { return -1 }
