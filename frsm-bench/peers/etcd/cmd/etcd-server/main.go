// Command etcd-server is etcd as shipped: it hands its arguments to etcd's own etcdmain, the
// entry point of the released etcd binary, so flags, defaults (fsync of the WAL on every commit)
// and behaviour are etcd's own. Built from the module versions pinned in go.mod, because the
// machine that runs the comparison can fetch Go modules but not release binaries.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
