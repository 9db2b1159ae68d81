# The two commands of the README. Each installs what it is missing.
.PHONY: dev test test-models deploy smoke

dev:
	./scripts/dev.sh

test:
	./scripts/test.sh

# Not one of the two: the model adapters against a real model server (README, "A real model server").
test-models:
	./scripts/test-models.sh

# Deploy the stack with samconfig.toml (AWS credentials from the environment, as the AWS CLI).
deploy:
	sam build && sam deploy

# A short journey against a running API (deployed: its ApiUrl and a Cognito ID token; README,
# "Deployment"): make smoke API=https://... TOKEN=...
smoke:
	cargo build --quiet -p devstack
	./target/debug/devstack smoke --url "$(API)" --token "$(TOKEN)"
