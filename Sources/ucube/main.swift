// The `ucube` executable: everything is in UCubeCLI, a library so that tests and the fuzz targets reach the same code.
import UCubeCLI

await CLI.main()
