"""A memory-backed agent: what session one learns, session two already knows.

Needs a Signet daemon (SIGNET_DAEMON_URL, default http://127.0.0.1:3850) and
a model: OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible
server (Ollama, vLLM, LM Studio, llama.cpp); ANTHROPIC_API_KEY with
provider_for("anthropic").
"""

import os

from signet_sdk.agent import Agent, provider_for

agent = Agent(
    provider_for("openai", model=os.environ.get("MODEL")),
    instructions="You are a terse release engineer. Store facts worth keeping.",
)
with agent.session(project=os.getcwd()) as chat:
    print(chat.send("Staging moved to pg-staging-3. Remember that.").content)

with agent.session(project=os.getcwd()) as chat:  # a new conversation
    for event in chat.stream("Where does staging run?"):
        if event.type == "text":
            print(event.text, end="", flush=True)
    print()
