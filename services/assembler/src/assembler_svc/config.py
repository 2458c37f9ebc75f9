from lore_runtime.settings import DEFAULT_ADDRESSES, ServerSettings, env, service_address


class Settings(ServerSettings):
    addr: str = service_address("assembler")
    memory_addr: str = env("LORE_MEMORY_ADDR", default=DEFAULT_ADDRESSES["memory"])
    observations_addr: str = env("LORE_OBSERVATIONS_ADDR", default=DEFAULT_ADDRESSES["observations"])
