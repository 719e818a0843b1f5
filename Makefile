# The README's commands. Both install what is missing first (scripts/setup.sh), then start the
# local Kafka broker and PostgreSQL server themselves when needed.
PYTHON ?= python3
PYTEST_ARGS ?=

.PHONY: setup demo test lint up down status

setup:
	@PYTHON=$(PYTHON) scripts/setup.sh

## make demo: start the local stack and an all-in-one worker, review three sample drafts
## (clean, fabricated statistic, dead link), print their decisions and feedback (streams/demo.py)
demo: setup
	$(PYTHON) -m streams.demo
	@echo "the stack keeps running; stop it with: multiqa dev down"

## make test: the whole test suite against the real broker and database
# pytest exits 5 when it collects no tests: that is not a failure here (make would report it as 2).
test: setup
	@$(PYTHON) -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest: no tests collected (exit 5), treated as success"; exit 0; fi; \
	exit $$rc

lint:
	ruff check .
	mypy

up:
	$(PYTHON) -m streams.cli dev up
down:
	$(PYTHON) -m streams.cli dev down
status:
	$(PYTHON) -m streams.cli dev status
