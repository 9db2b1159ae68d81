# The two commands of the README. Each installs what it is missing.
.PHONY: dev test test-models deploy

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
