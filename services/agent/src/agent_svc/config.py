from lore_runtime.settings import DEFAULT_ADDRESSES, ServerSettings, env, service_address, service_database_url


class Settings(ServerSettings):
    addr: str = service_address("agent")
    database_url: str = service_database_url("agent", "Postgres schema `agent`")
    memory_addr: str = env("LORE_MEMORY_ADDR", default=DEFAULT_ADDRESSES["memory"])
