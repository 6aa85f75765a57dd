// The test node's own small programs (docs/cluster.md): the pod sandbox's pause process and the network probe the
// node tests run inside pods. No dependencies beyond the standard library.
module toolyard.dev/test/cluster/node-tools

go 1.25.0
