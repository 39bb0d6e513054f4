"""How the progress files beside this one were written: each by the store code of the commit that made its version,
run from a worktree of that commit with this script, so each is a file a learner of that time had.

    git worktree add --detach /tmp/v3 1d88c60
    LLM_FROM_SCRATCH_PROGRESS=tests/data/stores/progress-v3.json LLM_FROM_SCRATCH_LEARNER=fixture0learner \
        python -S -c "import sys; sys.path.insert(0, '/tmp/v3/src'); import site; site.main(); \
                      exec(open('tests/data/stores/written_by.py').read())"

The commits: version 1 4b9a7e9, 2 6266fe1, 3 1d88c60, 4 4c7768c, 5 823e69e (version 6 is today's).
"""

from llm_from_scratch.book.progress import VERSION, store

COMMITS = {1: "4b9a7e9", 2: "6266fe1", 3: "1d88c60", 4: "4c7768c", 5: "823e69e"}

if __name__ == "__main__":
    lasting = store()
    if VERSION >= 3:
        lasting.name("Ира")
    variant = {"variant": 0} if VERSION >= 3 else {}
    lasting.record("ch27", "scores", False, **variant)
    if VERSION >= 2:
        lasting.record_hint("ch27", "scores", **variant)
    lasting.record("ch27", "scores", True, **variant)
    lasting.record("ch27", "first-look", False, **variant)
    if VERSION >= 3:
        lasting.record("ch27", "weights-by-hand", False, variant=2)
    if VERSION >= 4:
        lasting.record("ch27", "weights", True, computed=True)
    if VERSION >= 5:
        from llm_from_scratch.book.progress import add_attempt

        lasting.transact(lambda data: add_attempt(data, "ch27", "scores", True, own=True))
