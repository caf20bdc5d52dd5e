"""nucleo-tools-files: a nucleo tool pack for text files inside one root folder.

Installed, the pack registers itself through its ``nucleo.tools`` entry point ``files``; a
thinker offers it to its model with ``ToolSelector().add_pack("files")``. The tools are in
`nucleo_tools_files.tools`; the root folder they are confined to is described in
`nucleo_tools_files.root`. Importing this package does no I/O.
"""

from nucleo_tools_files.root import (
    ROOT_ENVIRONMENT_VARIABLE,
    FilesConfigError,
    FileToolError,
    PathOutsideRoot,
    files_root,
)
from nucleo_tools_files.tools import delete_file, list_directory, read_text_file, write_text_file

__all__ = [
    "ROOT_ENVIRONMENT_VARIABLE",
    "FileToolError",
    "FilesConfigError",
    "PathOutsideRoot",
    "delete_file",
    "files_root",
    "list_directory",
    "read_text_file",
    "write_text_file",
]
