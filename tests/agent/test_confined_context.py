"""What goes to the model quotes no file outside the tree: the compiler runs confined, so #embed of a
host file (directly, or through a macro the include check cannot see) embeds nothing."""

from __future__ import annotations

import secrets

import pytest

from vado.agent.loop import AgentOptions, Budget, run_agent
from vado.agent.verify import hipcc_path
from vado.verify.sandbox import confinement_available

from agent_helpers import FIXTURES, ScriptedProvider

pytestmark = [pytest.mark.hipcc, pytest.mark.skipif(hipcc_path() is None, reason="hipcc not installed"),
              pytest.mark.skipif(not confinement_available()[0], reason="no confinement here")]

SHOW = 'template <int N> struct Show { static_assert(N < 0, "shown"); static const int v = N; };\n'
ASM = '  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(s));\n'


def _tree(tmp_path, file_level: bool):
    value = "VADOSECRET-" + secrets.token_hex(8)
    path = tmp_path / f"secret-{secrets.token_hex(4)}"
    path.write_text(value + "\n")
    root = tmp_path / "user"
    root.mkdir()
    text = (FIXTURES / "ptx_funnel.cu").read_text()
    head = SHOW
    if file_level:
        head += f'#define G "{path}"\nconstexpr unsigned char leak0[] = {{\n#embed G\n}};\nShow<leak0[0]> shown0;\n'
    (root / "leak.cu").write_text(head + text)
    return root, path, value


@pytest.mark.parametrize("file_level", [True, False], ids=["in-the-file", "in-the-answer"])
def test_no_secret_bytes_reach_the_model(tmp_path, file_level):
    root, path, value = _tree(tmp_path, file_level)
    (root / "data.bin").symlink_to(path)  # a link in the tree to the file outside: the name passes the check
    answers = []
    for name in ("F", '"data.bin"'):  # through a macro (refused by the check), through the link (compiled)
        define = f'  #define F "{path}"\n' if name == "F" else ""
        leak = (f'{define}  static constexpr unsigned char leak[] = {{\n  #embed {name}\n  }};\n'
                "  d = Show<leak[0]>::v + Show<leak[1]>::v;\n")
        answers.append("<<<<<<< SEARCH\n" + ASM + "=======\n" + leak + ">>>>>>> REPLACE\n")
    provider = ScriptedProvider([*answers, "no"])
    log = tmp_path / "t.jsonl"
    run_agent(root / "leak.cu", tmp_path / "out", provider,
              AgentOptions(codes=("PTX002",), archs=("gfx942",), budget=Budget(attempts_per_item=3)), transcript=log)
    sent = "\n".join(m.content for prompt in provider.prompts for m in prompt)
    codes = ", ".join(str(b) for b in value.encode()[:3])
    assert len(provider.prompts) >= 2  # the rejection of the first answer went back to the model
    for text in (sent, log.read_text()):
        assert value not in text and codes not in text and f"Show<{value.encode()[0]}>" not in text
    assert "named by a macro" in sent  # the first answer was refused before any compile
    assert "not found" in sent  # the second was compiled: the compiler looked for the file and did not find it
