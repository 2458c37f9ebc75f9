from lore_client.mcp.stdio import main

main()
