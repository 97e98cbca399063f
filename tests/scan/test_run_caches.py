"""What vado reads from a tree is kept for one run: a later run in the same process (the MCP server) sees
headers created since."""

from vado.audit.pipeline import audit
from vado.scan.project_headers import included_project_headers, project_headers


def test_a_header_created_after_a_run_is_seen_by_the_next(tmp_path):
    (tmp_path / "a.cu").write_text('#include "h.h"\n__global__ void k() {}\n')
    (tmp_path / "build").mkdir()
    (tmp_path / "CMakeLists.txt").write_text("include_directories(build)\n")
    first = project_headers(str(tmp_path))
    _, found = included_project_headers(str(tmp_path), "a.cu", '#include "h.h"\n')
    assert found == ["h.h"]  # not there: the include is where it would be, beside the file
    (tmp_path / "build" / "h.h").write_text("#define N 4\n")
    audit(tmp_path)
    assert project_headers(str(tmp_path)) is not first  # the audit started from what the tree holds now
    _, found = included_project_headers(str(tmp_path), "a.cu", '#include "h.h"\n')
    assert found == ["build/h.h"]  # found through the build's include directory, created after the first run
