from lore_runtime.settings import ServerSettings, service_address, service_database_url


class Settings(ServerSettings):
    addr: str = service_address("agent")
    database_url: str = service_database_url("agent", "Postgres schema `agent`")
