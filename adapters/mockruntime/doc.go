// Package mockruntime is an in-memory runtime for herd's pods, for hosts
// without zones: it provisions, starts, stops and removes pods as a zone
// runtime would, on herd's injected clock, without running anything. herd
// serve runs the pods of nodes without an agent of their own on it, and
// tests use it to see what happened to a pod.
//
// A pod stops a configurable time after it is asked to shut down (at once
// by default); the annotation mock.herd.dev/shutdown-seconds sets that time
// per pod, and a negative value makes the pod ignore shutdown so that it
// has to be halted.
//
// It imports only the domain.
package mockruntime
