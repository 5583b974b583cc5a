package pgtest

import "syscall"

// dieWithParent has the kernel send postgres SIGQUIT, PostgreSQL's
// immediate shutdown, when the thread that started it ends; start keeps
// that thread until postgres exits, so it ends early only when this
// process dies.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGQUIT }
