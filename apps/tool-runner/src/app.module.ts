import { type DynamicModule, Module } from '@nestjs/common';
import type { ChatModel } from '@novelrag/agenturn';
import type { ServiceContext } from '@novelrag/bus';
import { NunjucksPromptRenderer, createChatModelFromEnv, findTemplatesRoot } from '@novelrag/llm';
import type { ToolRunnerEnv } from './config';
import { ToolLlm } from './prompts/tool-llm';
import { NatsMemory, NatsResourceService } from '@novelrag/resource-client';
import { BUILTIN_TOOLS, CHAT_MODEL, SERVICE_CONTEXT } from './tokens';
import { ToolHostService } from './tool-host.service';
import { builtinTools } from './tools/builtin-tools';
import { UnconfiguredChatModel } from './unconfigured-chat-model';

/** Seams for tests and offline demos (the same providers production uses). */
export interface ToolRunnerOverrides {
  readonly chatModel?: ChatModel;
  /** Uniform in [0, 1): perspective sampling and the weighted proposal choice. */
  readonly random?: () => number;
}

@Module({})
export class AppModule {
  static forRoot(ctx: ServiceContext<ToolRunnerEnv>, overrides: ToolRunnerOverrides = {}): DynamicModule {
    const { env } = ctx;
    return {
      module: AppModule,
      imports: [ctx.bus],
      providers: [
        { provide: SERVICE_CONTEXT, useValue: ctx },
        {
          provide: CHAT_MODEL,
          useFactory: (): ChatModel => {
            if (overrides.chatModel) return overrides.chatModel;
            const model = createChatModelFromEnv(env);
            if (!model) ctx.logger.write('warn', 'no LLM provider configured; model-backed tools will fail');
            return model ?? new UnconfiguredChatModel();
          },
        },
        {
          provide: BUILTIN_TOOLS,
          inject: [CHAT_MODEL],
          useFactory: (model: ChatModel) => {
            const renderer = new NunjucksPromptRenderer({
              root: findTemplatesRoot({ NOVELRAG_TEMPLATES_DIR: env.NOVELRAG_TEMPLATES_DIR }),
            });
            return builtinTools({
              resources: new NatsResourceService(ctx.connection, {
                timeoutMs: env.NOVELRAG_RESOURCE_TIMEOUT_MS,
              }),
              memory: new NatsMemory(ctx.connection, { timeoutMs: env.NOVELRAG_RESOURCE_TIMEOUT_MS }),
              llm: new ToolLlm(model, renderer),
              random: overrides.random ?? Math.random,
              web: {
                allowPrivate: env.NOVELRAG_WEB_ALLOW_PRIVATE,
                searchUrl: env.NOVELRAG_WEB_SEARCH_URL,
                imageSearchUrl: env.NOVELRAG_IMAGE_SEARCH_URL,
                ...(env.NOVELRAG_IMAGE_API_BASE_URL
                  ? {
                      images: {
                        baseUrl: env.NOVELRAG_IMAGE_API_BASE_URL,
                        apiKey: env.NOVELRAG_IMAGE_API_KEY,
                        model: env.NOVELRAG_IMAGE_MODEL,
                        ...(env.NOVELRAG_IMAGE_RESPONSE_FORMAT === 'none'
                          ? {}
                          : { responseFormat: env.NOVELRAG_IMAGE_RESPONSE_FORMAT }),
                        timeoutMs: env.NOVELRAG_IMAGE_TIMEOUT_MS,
                      },
                    }
                  : {}),
                timeoutMs: env.NOVELRAG_WEB_TIMEOUT_MS,
                maxBytes: env.NOVELRAG_WEB_MAX_BYTES,
              },
            });
          },
        },
        ToolHostService,
      ],
    };
  }
}
